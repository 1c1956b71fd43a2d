// Uploads in parts (docs/uploads.md): a body declared by its kind, type and length, written part by part in order to
// one private file under DATA_DIR/uploads, and taken whole once every part has arrived (the file is removed then).
// Everything is bounded: the length by the kind's limit (checked by the caller of `create`), the parts by that length,
// the unfinished uploads per owner and in all, and the time one may sit idle before it and its file are deleted.
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UPLOAD_PART_BYTES, type UploadKind } from "../../client/wire/routes/uploads.ts";
import type { Clock } from "../clock.ts";
import { asDiskFull, type DiskWrites } from "../db/disk.ts";
import { PRIVATE_FILE_MODE, makePrivateDir } from "../db/file-modes.ts";
import { conflict, invalid, notFound, tooLarge } from "../errors.ts";

export const UPLOADS_DIR = "uploads";

const SWEEP_EVERY_MS = 60_000;

export interface UploadLimits {
  /** Raw bytes of every part but the last. */
  partBytes: number;
  /** Unfinished uploads one owner may hold at once. */
  perOwner: number;
  /** Unfinished uploads of everyone at once. */
  total: number;
  /** An upload no part reached for this long is deleted (ms). */
  idleMs: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  partBytes: UPLOAD_PART_BYTES,
  perOwner: 4,
  total: 32,
  idleMs: 15 * 60_000,
};

export interface UploadDeclaration {
  kind: UploadKind;
  name?: string | undefined;
  content_type: string;
  bytes: number;
}

interface Upload extends UploadDeclaration {
  id: string;
  owner: string;
  file: string;
  parts: number;
  receivedParts: number;
  receivedBytes: number;
  touchedAt: number;
}

/** An upload taken whole: what the direct route would have read. */
export interface TakenUpload extends UploadDeclaration {
  body: Buffer;
}

export interface UploadServiceParts {
  dataDir: string;
  disk: DiskWrites;
  clock: Clock;
  /** The server is stopping: sweeping ends and every unfinished upload is deleted (none could be finished after). */
  shutdown: AbortSignal;
  limits?: Partial<UploadLimits>;
}

export class UploadService {
  private readonly uploads = new Map<string, Upload>();
  private readonly dir: string;
  readonly limits: UploadLimits;

  constructor(private readonly parts: UploadServiceParts) {
    this.limits = { ...DEFAULT_UPLOAD_LIMITS, ...parts.limits };
    this.dir = join(parts.dataDir, UPLOADS_DIR);
    makePrivateDir(this.dir);
    // Unfinished uploads live in memory: files a previous run left cannot be finished, so they go.
    for (const name of readdirSync(this.dir)) rmSync(join(this.dir, name), { force: true });
    this.sweepUntil(parts.shutdown);
  }

  /** Opens an upload; its length is already allowed for its kind. */
  create(owner: string, declared: UploadDeclaration): { upload_id: string; part_bytes: number } {
    this.sweep();
    this.requireRoom(owner);
    const id = `upl_${randomUUID().replaceAll("-", "")}`;
    const file = join(this.dir, id);
    try {
      this.parts.disk.writeFileSync(file, new Uint8Array(0), { mode: PRIVATE_FILE_MODE, flag: "wx" });
    } catch (error) {
      rmSync(file, { force: true });
      throw asDiskFull(error);
    }
    const parts = Math.ceil(declared.bytes / this.limits.partBytes);
    const now = this.parts.clock.now();
    this.uploads.set(id, { ...declared, id, owner, file, parts, receivedParts: 0, receivedBytes: 0, touchedAt: now });
    return { upload_id: id, part_bytes: this.limits.partBytes };
  }

  /** Appends part `n`, which must be the next one and exactly as long as its place says. */
  putPart(owner: string, id: string, n: number, bytes: Uint8Array): { received_parts: number; received_bytes: number } {
    this.sweep();
    const upload = this.find(owner, id);
    const order = { expected: upload.receivedParts, parts: upload.parts };
    if (n < upload.receivedParts) throw conflict("upload_part_repeated", `part ${n} already arrived`, order);
    if (n > upload.receivedParts || n >= upload.parts) throw outOfOrder(upload, n);
    const expected = Math.min(this.limits.partBytes, upload.bytes - upload.receivedBytes);
    if (bytes.length > expected)
      throw tooLarge("upload_part_too_large", `part ${n} must be ${expected} bytes, not ${bytes.length}`, {
        expected_bytes: expected,
      });
    if (bytes.length < expected)
      throw invalid("upload_part_incomplete", `part ${n} must be ${expected} bytes, not ${bytes.length}`, {
        expected_bytes: expected,
      });
    this.append(upload, bytes);
    return { received_parts: upload.receivedParts, received_bytes: upload.receivedBytes };
  }

  /** The kind of the owner's upload `id` (404 upload_not_found when it is not theirs or not there). */
  kindOf(owner: string, id: string): UploadKind {
    this.sweep();
    return this.find(owner, id).kind;
  }

  /** The whole body of an upload whose parts have all arrived; the upload and its file are gone after. */
  take(owner: string, id: string, kind?: UploadKind): TakenUpload {
    this.sweep();
    const upload = this.find(owner, id, kind);
    if (upload.receivedParts < upload.parts)
      throw conflict(
        "upload_incomplete",
        `upload ${id} has ${upload.receivedParts} of its ${upload.parts} parts; part ${upload.receivedParts} is next`,
        { expected: upload.receivedParts, parts: upload.parts },
      );
    this.drop(upload);
    try {
      return {
        kind: upload.kind,
        name: upload.name,
        content_type: upload.content_type,
        bytes: upload.bytes,
        body: readFileSync(upload.file),
      };
    } finally {
      rmSync(upload.file, { force: true });
    }
  }

  /** Deletes every upload idle for longer than `idleMs`, and its file. */
  sweep(): void {
    const cutoff = this.parts.clock.now() - this.limits.idleMs;
    for (const upload of this.uploads.values()) if (upload.touchedAt < cutoff) this.discard(upload);
  }

  /**
   * Sweeps once a minute until `signal` aborts, so an abandoned upload's file goes even when no one uploads again;
   * then deletes what is left. The timer only wakes the sweep: what is idle is decided on the injected clock, and a
   * test's clock is not handed a sleep it did not ask for.
   */
  private sweepUntil(signal: AbortSignal): void {
    const timer = setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(timer);
        this.close();
      },
      { once: true },
    );
  }

  /** How many uploads are unfinished (for tests and the health of the bound). */
  get open(): number {
    return this.uploads.size;
  }

  private close(): void {
    for (const upload of this.uploads.values()) this.discard(upload);
  }

  private requireRoom(owner: string): void {
    let mine = 0;
    for (const upload of this.uploads.values()) if (upload.owner === owner) mine++;
    const { perOwner, total } = this.limits;
    if (mine >= perOwner || this.uploads.size >= total) {
      const max = mine >= perOwner ? perOwner : total;
      const whose = mine >= perOwner ? "you have" : "the server has";
      throw conflict("too_many_uploads", `${whose} ${max} unfinished uploads; complete one or wait for it to expire`, {
        max_uploads: max,
      });
    }
  }

  /** The owner's upload (of `kind`, when given); anyone else's is as unknown as one never made. */
  private find(owner: string, id: string, kind?: UploadKind): Upload {
    const upload = this.uploads.get(id);
    if (!upload || upload.owner !== owner || (kind !== undefined && upload.kind !== kind))
      throw notFound("upload_not_found", `no unfinished ${kind ?? ""}${kind ? " " : ""}upload ${id} of yours`);
    return upload;
  }

  private append(upload: Upload, bytes: Uint8Array): void {
    try {
      this.parts.disk.writeFileSync(upload.file, bytes, { mode: PRIVATE_FILE_MODE, flag: "a" });
    } catch (error) {
      // What was written of this part cannot be told from what was not: the upload cannot go on.
      this.discard(upload);
      throw asDiskFull(error);
    }
    upload.receivedParts++;
    upload.receivedBytes += bytes.length;
    upload.touchedAt = this.parts.clock.now();
  }

  private drop(upload: Upload): void {
    this.uploads.delete(upload.id);
  }

  private discard(upload: Upload): void {
    this.drop(upload);
    rmSync(upload.file, { force: true });
  }
}

function outOfOrder(upload: Upload, n: number) {
  const message =
    n >= upload.parts
      ? `upload ${upload.id} has ${upload.parts} parts (0 to ${upload.parts - 1}); there is no part ${n}`
      : `part ${n} came before part ${upload.receivedParts}; parts go in order from 0`;
  return conflict("upload_part_out_of_order", message, { expected: upload.receivedParts, parts: upload.parts });
}
