// POST /import's work (docs/export.md "Import"), on a file the route has already received whole (bounded by
// import.max_bytes). Two passes: the first checks every element (JSON, a known format, its schema, its images, the
// routes' limits) and imports nothing, so a bad file imports nothing and the answer names the element and the problem;
// the second stores each chat, and skips a chat whose source id was imported before and still exists. The chats the
// first pass parsed are kept for the second up to KEPT_BYTES of file, so such a file is read and parsed once. A chat's
// messages are staged in slices (staging.ts), then one short transaction makes it whole at once (its session, its
// images, its ledger row), so no chat is ever half there. Parsing, checks, conversion and staging all run in slices
// (slices.ts), so a big import does not stall streaming replies nor the other routes.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Message, Session } from "../../client/wire/index.ts";
import { newAssetId, type AssetStore } from "../assets/store.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { Transactor } from "../db/transactor.ts";
import { ChatDocumentCopies } from "../documents/chat-copy.ts";
import { DomainError } from "../errors.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { arrayElements, ImportFormatError } from "./array-scanner.ts";
import { IMPORTS_DIR } from "./receive.ts";
import { chatFromChatgpt, chatgptNodes } from "./chatgpt.ts";
import {
  chatgptConversationSchema,
  formatOf,
  importedRecordSchema,
  looseMessageSchema,
  type ExportedAsset,
  type ImportedChat,
} from "./format.ts";
import { limitBroken, type ImportLimits } from "./limits.ts";
import { Slices } from "./slices.ts";
import type { ImportLedger } from "./ledger.ts";
import { ImportStaging } from "./staging.ts";

export interface ImportedEntry {
  source_id: string;
  session_id: string;
  /** Already imported earlier (and still there): left as it was. */
  skipped: boolean;
}

export interface ImportSummary {
  imported: number;
  skipped: number;
  chats: ImportedEntry[];
}

export interface ImporterParts {
  db: Db;
  transactor: Transactor;
  sessions: SessionService;
  assets: AssetStore;
  ledger: ImportLedger;
  clock: Clock;
  dataDir: string;
  serverId: string;
  /** The config's agents: an imported chat keeps its agent when this server has it, else gets the default one. */
  agents: () => Iterable<string>;
  /** What one imported chat may bring (limits.ts). */
  limits: ImportLimits;
}

/** Fields a record's session carries that the importing server assigns anew. */
const ASSIGNED_FIELDS = new Set(["id", "version", "updated_at", "source_session_id", "messages", "agent_id"]);

/**
 * Bytes of file whose chats the check pass keeps for the store pass (parsed and converted), so they are parsed once;
 * the chats past it are parsed again. Bounds the memory an import holds beyond one chat (a parsed chat takes a few
 * times its bytes).
 */
export const KEPT_BYTES = 16 * 1024 * 1024;

/** An image of a chat being stored: the id it gets here, and whether it is stored or its fork source's is shared. */
interface PlannedAsset {
  asset: ExportedAsset;
  id: string;
  stored: boolean;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Importer {
  private readonly staging: ImportStaging;

  private readonly documents: ChatDocumentCopies;

  constructor(private readonly parts: ImporterParts) {
    // An upload a crash cut off left its temporary file behind, and maybe a chat's staged messages: nothing can be
    // running yet, so none is in use.
    rmSync(join(parts.dataDir, IMPORTS_DIR), { recursive: true, force: true });
    this.staging = new ImportStaging(parts.db, parts.transactor, parts.sessions);
    this.staging.recover();
    this.documents = new ChatDocumentCopies(parts.db);
  }

  /** Checks then imports `file` (a JSON array); throws ImportFormatError, having imported nothing, for a bad file. */
  async importFile(file: string): Promise<ImportSummary> {
    // One chat is checked and converted in slices too: a conversation of 10,000 messages held the server for seconds.
    const slices = new Slices(this.parts.clock);
    const kept = new Map<number, ImportedChat>();
    let keptBytes = 0;
    let count = 0;
    for await (const { index, value, bytes } of arrayElements(file, slices)) {
      const chat = await this.chatOf(value, index, slices);
      await this.check(chat, index, slices);
      if (keptBytes + bytes <= KEPT_BYTES) {
        kept.set(index, chat);
        keptBytes += bytes;
      }
      count = index + 1;
      await slices.step();
    }
    const summary: ImportSummary = { imported: 0, skipped: 0, chats: [] };
    const renamed = new Map<string, string>();
    for await (const chat of this.chatsAgain(file, kept, count, slices)) {
      const entry = await this.store(chat, renamed, slices);
      summary.chats.push(entry);
      if (entry.skipped) summary.skipped++;
      else summary.imported++;
      await turn();
    }
    return summary;
  }

  /** The checked chats again, in order: those kept as they are, the others parsed from the file once more. */
  private async *chatsAgain(
    file: string,
    kept: Map<number, ImportedChat>,
    count: number,
    slices: Slices,
  ): AsyncGenerator<ImportedChat> {
    const take = (index: number) => {
      const chat = kept.get(index);
      kept.delete(index);
      return chat;
    };
    if (kept.size === count) {
      for (let index = 0; index < count; index++) yield take(index)!;
      return;
    }
    for await (const { index, value } of arrayElements(file, slices, (index) => !kept.has(index)))
      yield take(index) ?? (await this.chatOf(value, index, slices));
  }

  /** An element as a chat, or ImportFormatError naming the element and the first problem. */
  private async chatOf(value: unknown, index: number, slices: Slices): Promise<ImportedChat> {
    const format = formatOf(value);
    if (format === "chat-relay") return this.chatOfRecord(value, index, slices);
    if (format === "chatgpt") {
      const conversation = chatgptConversationSchema.safeParse(value);
      if (!conversation.success) throw schemaError(index, "ChatGPT conversation", conversation.error.issues);
      const nodes = await chatgptNodes(conversation.data.mapping, slices);
      if (!(nodes instanceof Map)) throw schemaError(index, "ChatGPT conversation", [nodes]);
      const agent = this.agentFor(undefined);
      return chatFromChatgpt(conversation.data, nodes, () => JSON.stringify(value), agent, slices);
    }
    throw new ImportFormatError(
      `element ${index} is neither a chat-relay chat record (format "chat-relay.chat", as GET /export gives) ` +
        `nor a ChatGPT conversation (with "mapping")`,
    );
  }

  /** A chat-relay record as a chat; its messages are checked one by one, in slices. */
  private async chatOfRecord(value: unknown, index: number, slices: Slices): Promise<ImportedChat> {
    const record = importedRecordSchema.safeParse(value);
    if (!record.success) throw schemaError(index, "chat-relay.chat", record.error.issues);
    const { session } = record.data;
    const messages: Message[] = [];
    for (const [n, raw] of session.messages.entries()) {
      const message = looseMessageSchema.safeParse(raw);
      if (!message.success) throw schemaError(index, "chat-relay.chat", prefixed(["session", "messages", n], message));
      messages.push(message.data);
      await slices.step();
    }
    const fields = Object.fromEntries(Object.entries(session).filter(([key]) => !ASSIGNED_FIELDS.has(key)));
    return {
      source_id: record.data.source_id,
      agent_id: this.agentFor(session.agent_id),
      fields,
      messages,
      assets: record.data.assets,
      documents: record.data.documents,
      original_id: session.id,
      ...(session.source_session_id ? { original_source_session_id: session.source_session_id } : {}),
    };
  }

  /** What storing would refuse, found before anything is stored: the routes' limits, the images (type, size). */
  private async check(chat: ImportedChat, index: number, slices: Slices): Promise<void> {
    const broken = await limitBroken(chat, this.parts.limits, slices);
    if (broken) throw new ImportFormatError(`element ${index} (${chat.source_id.slice(0, 200)}): ${broken}`);
    for (const [n, asset] of chat.assets.entries()) {
      try {
        this.parts.assets.checkImage(Buffer.from(asset.data, "base64"), asset.media_type);
      } catch (error) {
        if (error instanceof DomainError)
          throw new ImportFormatError(`element ${index}: assets.${n}: ${error.message}`);
        throw error;
      }
    }
  }

  /**
   * Stores one chat: its messages staged in slices under the session id it will have, then one transaction that
   * creates the session over them with its images and its ledger row. `renamed`: old asset id → new, for this file, so
   * a fork shares its source's image instead of a copy.
   */
  private async store(chat: ImportedChat, renamed: Map<string, string>, slices: Slices): Promise<ImportedEntry> {
    const earlier = this.alreadyImported(chat);
    if (earlier) return { source_id: chat.source_id, session_id: earlier, skipped: true };
    // The source goes in at creation: the sessions table's lineage (who may read whose images) comes from there.
    const source = this.sourceSessionOf(chat);
    const assets = this.planAssets(chat, source, renamed);
    const renamedChat = await withAssetsRenamed(chat, assets, slices);
    const sessionId = randomUUID();
    try {
      await this.staging.stage(sessionId, renamedChat.messages, slices);
      this.parts.transactor.run(() => {
        this.parts.sessions.createFromStaged(
          sessionId,
          { agent_id: chat.agent_id, ...(source !== undefined ? { source_session_id: source } : {}) },
          () => {
            this.storeAssets(sessionId, assets);
            for (const copy of chat.documents) this.documents.restore(sessionId, copy, this.parts.clock.now());
          },
          (first) => this.sessionOf(first, renamedChat, source),
        );
        this.parts.ledger.record(chat.source_id, sessionId, chat.original_id, this.parts.clock.now());
        this.staging.done(sessionId);
      });
    } catch (error) {
      // The transaction rolled back: the staged messages and the image files written for it go too.
      rmSync(join(this.parts.dataDir, "assets", sessionId), { recursive: true, force: true });
      this.abandon(sessionId);
      throw error;
    }
    for (const { asset, id } of assets) renamed.set(asset.asset_id, id);
    return { source_id: chat.source_id, session_id: sessionId, skipped: false };
  }

  /** Removes a failed chat's staged messages; when that fails too (a full disk), the next start does it. */
  private abandon(sessionId: string): void {
    try {
      this.staging.abandon(sessionId);
    } catch {
      // Still listed as staged: ImportStaging.recover() at the next start removes it.
    }
  }

  /** The session a chat already became here: imported under its source id, or (this server's own export) itself. */
  private alreadyImported(chat: ImportedChat): string | undefined {
    const own = `chat-relay:${this.parts.serverId}:`;
    const candidates = [
      this.parts.ledger.sessionOf(chat.source_id),
      chat.source_id.startsWith(own) ? chat.source_id.slice(own.length) : undefined,
    ];
    return candidates.find((id) => id !== undefined && this.exists(id));
  }

  /**
   * The id each of the chat's images gets here: an image its fork source already brought along (same old id, readable
   * from `source`) is shared, as it was, not copied; any other gets a new id and is stored with the chat.
   */
  private planAssets(chat: ImportedChat, source: string | undefined, renamed: Map<string, string>): PlannedAsset[] {
    return chat.assets.map((asset) => {
      const shared = renamed.get(asset.asset_id);
      return shared !== undefined && source !== undefined && this.readable(source, shared)
        ? { asset, id: shared, stored: false }
        : { asset, id: newAssetId(), stored: true };
    });
  }

  private storeAssets(sessionId: string, assets: PlannedAsset[]): void {
    for (const { asset, id, stored } of assets)
      if (stored)
        this.parts.assets.store(sessionId, Buffer.from(asset.data, "base64"), asset.media_type, asset.filename, id);
  }

  /** The session a fork's source became here, when it came along (imported before it) and is still there. */
  private sourceSessionOf(chat: ImportedChat): string | undefined {
    const source = chat.original_source_session_id
      ? this.parts.ledger.sessionFromOriginal(chat.original_source_session_id)
      : undefined;
    return source !== undefined && this.exists(source) ? source : undefined;
  }

  private readable(sessionId: string, assetId: string): boolean {
    try {
      this.parts.assets.resolve(sessionId, assetId);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") return false;
      throw error;
    }
  }

  private sessionOf(current: Session, chat: ImportedChat, source: string | undefined): Session {
    return {
      ...(chat.fields as Partial<Session>),
      id: current.id,
      agent_id: chat.agent_id,
      version: current.version,
      created_at: typeof chat.fields["created_at"] === "string" ? chat.fields["created_at"] : current.created_at,
      updated_at: current.updated_at,
      // A fork points at its source's new session when that came along (imported before it); else it stands alone.
      ...(source !== undefined ? { source_session_id: source } : {}),
      messages: chat.messages,
      metadata: (chat.fields["metadata"] as Session["metadata"] | undefined) ?? {},
    };
  }

  private agentFor(agentId: string | undefined): string {
    const known = [...this.parts.agents()];
    if (agentId !== undefined && known.includes(agentId)) return agentId;
    return known.includes("default") ? "default" : known[0]!;
  }

  private exists(sessionId: string): boolean {
    try {
      this.parts.sessions.get(sessionId);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") return false;
      throw error;
    }
  }
}

/** The chat with every mention of an old image id renamed to its new one, message by message, in slices. */
async function withAssetsRenamed(chat: ImportedChat, assets: PlannedAsset[], slices: Slices): Promise<ImportedChat> {
  if (assets.length === 0) return chat;
  const rename = <T>(value: T): T => {
    let text = JSON.stringify(value);
    for (const { asset, id } of assets) text = text.replaceAll(asset.asset_id, id);
    return JSON.parse(text) as T;
  };
  const messages: ImportedChat["messages"] = [];
  for (const message of chat.messages) {
    messages.push(rename(message));
    await slices.step();
  }
  return { ...chat, fields: rename(chat.fields), messages };
}

/** A nested parse's first issue, its path under `at`. */
function prefixed(at: PropertyKey[], failed: { error: { issues: Array<{ path: PropertyKey[]; message: string }> } }) {
  const first = failed.error.issues[0]!;
  return [{ path: [...at, ...first.path], message: first.message }];
}

function schemaError(
  index: number,
  format: string,
  issues: Array<{ path: PropertyKey[]; message: string }>,
): ImportFormatError {
  const first = issues[0]!;
  const path = first.path.map(String).join(".");
  return new ImportFormatError(`element ${index} (${format}): ${path ? `${path}: ` : ""}${first.message}`);
}
