// POST /import's work (docs/export.md "Import"), on a file the route has already received whole (bounded by
// import.max_bytes). Two passes over it: the first checks every element (JSON, a known format, its schema, its
// images) and imports nothing, so a bad file imports nothing and the answer names the element and the problem; the
// second stores each chat in one transaction of its own (its session, its images, its ledger row), so no chat is
// ever half there, and skips a chat whose source id was imported before and still exists. Between chats it gives
// the event loop a turn, and within a chat the checks and the conversion run in slices (slices.ts), so a big import
// does not stall streaming replies nor the other routes.
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Message, Session } from "../../client/wire/index.ts";
import type { AssetStore } from "../assets/store.ts";
import type { Clock } from "../clock.ts";
import type { Transactor } from "../db/transactor.ts";
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
  type ImportedChat,
} from "./format.ts";
import { limitBroken, type ImportLimits } from "./limits.ts";
import { Slices } from "./slices.ts";
import type { ImportLedger } from "./ledger.ts";

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

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Importer {
  constructor(private readonly parts: ImporterParts) {
    // An upload a crash cut off left its temporary file behind: nothing can be running yet, so none is in use.
    rmSync(join(parts.dataDir, IMPORTS_DIR), { recursive: true, force: true });
  }

  /** Checks then imports `file` (a JSON array); throws ImportFormatError, having imported nothing, for a bad file. */
  async importFile(file: string): Promise<ImportSummary> {
    // One chat is checked and converted in slices too: a conversation of 10,000 messages held the server for seconds.
    const slices = new Slices(this.parts.clock);
    for (const { index, value } of arrayElements(file)) {
      this.check(await this.chatOf(value, index, slices), index);
      await slices.step();
    }
    const summary: ImportSummary = { imported: 0, skipped: 0, chats: [] };
    const renamed = new Map<string, string>();
    for (const { index, value } of arrayElements(file)) {
      const entry = this.store(await this.chatOf(value, index, slices), renamed);
      summary.chats.push(entry);
      if (entry.skipped) summary.skipped++;
      else summary.imported++;
      await turn();
    }
    return summary;
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
      original_id: session.id,
      ...(session.source_session_id ? { original_source_session_id: session.source_session_id } : {}),
    };
  }

  /** What storing would refuse, found before anything is stored: the routes' limits, the images (type, size). */
  private check(chat: ImportedChat, index: number): void {
    const broken = limitBroken(chat, this.parts.limits);
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

  /** `renamed`: old asset id → new, for this file, so a fork shares its source's image instead of a copy. */
  private store(chat: ImportedChat, renamed: Map<string, string>): ImportedEntry {
    const earlier = this.alreadyImported(chat);
    if (earlier) return { source_id: chat.source_id, session_id: earlier, skipped: true };
    let createdId: string | undefined;
    try {
      const session = this.parts.transactor.run(() => {
        // The source goes in at creation: the sessions table's lineage (who may read whose images) comes from there.
        const source = this.sourceSessionOf(chat);
        const created = this.parts.sessions.create(chat.agent_id, source);
        createdId = created.id;
        const withAssets = this.storeAssets(created.id, source, chat, renamed);
        const saved = this.parts.sessions.change(created.id, (current) => ({
          next: this.sessionOf(current, withAssets, source),
          events: (next) => [{ type: "session_updated", session_id: next.id, session: next }],
          result: (next) => next,
        }));
        this.parts.ledger.record(chat.source_id, saved.id, chat.original_id, this.parts.clock.now());
        return saved;
      });
      return { source_id: chat.source_id, session_id: session.id, skipped: false };
    } catch (error) {
      // The transaction rolled back; the image files written for it have no rows and no session: remove them.
      if (createdId !== undefined)
        rmSync(join(this.parts.dataDir, "assets", createdId), { recursive: true, force: true });
      throw error;
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
   * Stores the chat's images under the new session and returns the chat with every old asset id renamed. An image
   * its fork source already brought along (same old id, readable from `source`) is shared, as it was, not copied.
   */
  private storeAssets(
    sessionId: string,
    source: string | undefined,
    chat: ImportedChat,
    renamed: Map<string, string>,
  ): ImportedChat {
    if (chat.assets.length === 0) return chat;
    let text = JSON.stringify({ fields: chat.fields, messages: chat.messages });
    for (const asset of chat.assets) {
      const shared = renamed.get(asset.asset_id);
      const newId =
        shared !== undefined && source !== undefined && this.readable(source, shared)
          ? shared
          : this.parts.assets.store(sessionId, Buffer.from(asset.data, "base64"), asset.media_type, asset.filename)
              .asset_id;
      renamed.set(asset.asset_id, newId);
      text = text.replaceAll(asset.asset_id, newId);
    }
    return { ...chat, ...(JSON.parse(text) as Pick<ImportedChat, "fields" | "messages">) };
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
