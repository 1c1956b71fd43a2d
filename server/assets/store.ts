// Session-owned image attachments: bytes under DATA_DIR/assets/<session>/<asset>, one SQLite row each. A
// session sees its own assets and those of the sessions it was forked from (source_session_id, followed
// up the chain), because a fork copies messages that may reference them. Only the owner deletes.
import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { asDiskFull, nodeDisk, type DiskWrites } from "../db/disk.ts";
import { makePrivateDir, PRIVATE_FILE_MODE, restrictTree } from "../db/file-modes.ts";
import type { Transactor } from "../db/transactor.ts";
import { forbidden } from "../errors.ts";
import { assetNotFound, mediaTypeMismatch, tooLarge, unsupportedImage } from "./errors.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { normalizeMediaType, sniffImageType } from "./sniff.ts";

export interface AssetInfo {
  asset_id: string;
  session_id: string;
  media_type: string;
  size: number;
  filename?: string;
}

type Row = { id: string; session_id: string; media_type: string; size: number; filename: string | null };

export interface AssetStoreParts {
  db: Db;
  transactor: Transactor;
  /** Owners and fork lineage: an asset belongs to a session. */
  sessions: Pick<SessionService, "get" | "requireExists" | "lineage" | "isGone">;
  clock: Clock;
  /** DATA_DIR: the bytes live under its assets/ folder. */
  dataDir: string;
  /** Largest image accepted (config assets.max_bytes). */
  maxBytes: number;
  /** Where the bytes are written (node:fs unless a test hands a full disk). */
  disk?: DiskWrites;
}

/** Asset ids are ours; the pattern also keeps any id a client sends from naming a path outside the folder. */
export const ASSET_ID_PATTERN = /^ast_[0-9a-f]{32}$/;

/** A new asset id (ASSET_ID_PATTERN). */
export function newAssetId(): string {
  return `ast_${randomUUID().replaceAll("-", "")}`;
}

export class AssetStore {
  readonly maxBytes: number;
  private readonly root: string;
  private readonly insert;
  private readonly select;
  private readonly remove;
  private readonly removeOfSession;

  constructor(private readonly ctx: AssetStoreParts) {
    this.maxBytes = ctx.maxBytes;
    this.root = join(ctx.dataDir, "assets");
    restrictTree(this.root); // users' images: private, also when an older start wrote them readable
    this.insert = ctx.db.prepare<[string, string, string, number, string | null, number]>(
      "INSERT INTO assets (id, session_id, media_type, size, filename, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.select = ctx.db.prepare<[string], Row>(
      "SELECT id, session_id, media_type, size, filename FROM assets WHERE id = ?",
    );
    this.remove = ctx.db.prepare<[string]>("DELETE FROM assets WHERE id = ?");
    this.removeOfSession = ctx.db.prepare<[string]>("DELETE FROM assets WHERE session_id = ?");
  }

  /** Checks an image against the size limit and its declared type; returns the type its bytes have. */
  checkImage(bytes: Uint8Array, declared: string | undefined): string {
    if (bytes.length > this.maxBytes) throw tooLarge(bytes.length, this.maxBytes);
    const sniffed = sniffImageType(bytes);
    if (!sniffed) throw unsupportedImage(declared);
    if (declared !== undefined && normalizeMediaType(declared) !== sniffed)
      throw mediaTypeMismatch(normalizeMediaType(declared), sniffed);
    return sniffed;
  }

  /**
   * Stores an image for `sessionId` (not_found for an unknown session). The file is in place before the row commits.
   * `id`: one chosen beforehand with newAssetId() (an import renames its images before it stores them).
   */
  store(
    sessionId: string,
    bytes: Uint8Array,
    declared: string | undefined,
    filename: string | undefined,
    id = newAssetId(),
  ): AssetInfo {
    // A point query: the session's messages are not read.
    this.ctx.sessions.requireExists(sessionId);
    const mediaType = this.checkImage(bytes, declared);
    const dir = join(this.root, sessionId);
    makePrivateDir(dir);
    const file = join(dir, id);
    // Write-then-rename: a crash leaves a stray temp file at worst, never a row pointing at half an image.
    try {
      (this.ctx.disk ?? nodeDisk).writeFileSync(`${file}.tmp`, bytes, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      rmSync(`${file}.tmp`, { force: true });
      throw asDiskFull(error);
    }
    renameSync(`${file}.tmp`, file);
    try {
      this.ctx.transactor.run(() =>
        this.insert.run(id, sessionId, mediaType, bytes.length, filename ?? null, this.ctx.clock.now()),
      );
    } catch (error) {
      rmSync(file, { force: true });
      throw error;
    }
    return {
      asset_id: id,
      session_id: sessionId,
      media_type: mediaType,
      size: bytes.length,
      ...(filename ? { filename } : {}),
    };
  }

  /** The asset as `sessionId` sees it (its own or a fork ancestor's), or not_found. */
  resolve(sessionId: string, assetId: string): AssetInfo {
    const row = ASSET_ID_PATTERN.test(assetId) ? this.select.get(assetId) : undefined;
    if (!row || !this.lineage(sessionId).includes(row.session_id)) throw assetNotFound(sessionId, assetId);
    return {
      asset_id: row.id,
      session_id: row.session_id,
      media_type: row.media_type,
      size: row.size,
      ...(row.filename ? { filename: row.filename } : {}),
    };
  }

  read(sessionId: string, assetId: string): { info: AssetInfo; bytes: Buffer } {
    const info = this.resolve(sessionId, assetId);
    return { info, bytes: readFileSync(join(this.root, info.session_id, info.asset_id)) };
  }

  /** Deletes an asset of `sessionId` itself; a fork may read its source's assets but not delete them. */
  delete(sessionId: string, assetId: string): AssetInfo {
    const info = this.resolve(sessionId, assetId);
    if (info.session_id !== sessionId)
      throw forbidden(
        "asset_not_owned",
        `attachment ${assetId} belongs to session ${info.session_id}, which this session was forked from; delete it there`,
      );
    this.ctx.transactor.run(() => this.remove.run(assetId));
    rmSync(join(this.root, info.session_id, info.asset_id), { force: true });
    return info;
  }

  /**
   * After a session was deleted (`lineage`: it, then the sessions it was forked from): removes the attachments of
   * each one that is deleted and has no live fork left to use them, nearest first, up to the first that stays.
   */
  purgeDeleted(lineage: readonly string[]): void {
    for (const sessionId of lineage) {
      if (!this.ctx.sessions.isGone(sessionId)) return;
      this.ctx.transactor.run(() => this.removeOfSession.run(sessionId));
      rmSync(join(this.root, sessionId), { recursive: true, force: true });
    }
  }

  /**
   * The session and the sessions it was forked from, nearest first (not_found for an unknown session). A deleted
   * source stays in the chain: its attachments live on while a fork of it does.
   */
  private lineage(sessionId: string): string[] {
    return this.ctx.sessions.lineage(sessionId);
  }
}
