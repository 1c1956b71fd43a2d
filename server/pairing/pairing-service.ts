// The server owns pairing codes and devices. A code is created by the admin, redeemed once (through the bridge)
// into a device whose 256-bit token is returned once and stored hashed; devices are listed and revoked here.
// Every change is announced to listeners (the forwarder), which hand the new grants to the bridge at once.
import type { FastifyBaseLogger } from "fastify";
import { randomUUID } from "node:crypto";
import type { DeviceMode } from "../../client/wire/e2e.ts";
import type { CodeGrant, DeviceGrant, PairingErrorReason } from "../../client/wire/frames.ts";
import { generateToken } from "../auth/tokens.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import type { Db } from "../db/database.ts";
import type { Statement } from "better-sqlite3";
import { ListenerSet } from "../listeners.ts";
import { generatePairingCode, hashPairingCode } from "./codes.ts";

/** The person a code made without one is for: the oldest live admin (the admin token's person). */
const ACTING_ADMIN =
  "SELECT id FROM people WHERE removed_at IS NULL AND role = 'admin' ORDER BY created_at, rowid LIMIT 1";

export const DEFAULT_CODE_TTL_MS = 10 * 60 * 1000;
/** A device never used this long after its pairing is revoked (revokeUnused): an app uses its token within seconds. */
export const UNUSED_DEVICE_MS = 60 * 60 * 1000;
/** `last_seen_at` is kept to this precision: a device polling every second costs one write a minute, not sixty. */
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

export interface DeviceRecord {
  device_id: string;
  name: string;
  created_at: string;
  last_seen_at: string | null;
  revoked_at: string | null;
  /** Whether the device has a socket open on the bridge now; null while the server is not linked to a bridge. */
  connected: boolean | null;
  /** `e2e`: paired with a public key, gets sealed events; `plain`: paired without one (docs/security.md). */
  mode: DeviceMode;
  /** The person the device belongs to (docs/people.md). */
  person_id: string;
}

type DeviceRow = {
  id: string;
  name: string;
  created_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
  public_key: string | null;
  person_id: string;
};

export interface PairedDevice {
  device_id: string;
  person_id: string;
  name: string;
}

export type Redemption =
  { ok: true; device_id: string; device_token: string; person_id: string } | { ok: false; reason: PairingErrorReason };

export class PairingService {
  private readonly listeners = new ListenerSet<void>();
  private readonly revocations = new ListenerSet<string>();
  private readonly pairings = new ListenerSet<PairedDevice>();
  /** Whether a live device is plain (the forwarder then sends plaintext too); undefined: read it again. */
  private plainLive: boolean | undefined;
  /** device id → the last_seen_at this process last wrote for it. */
  private readonly seenWritten = new Map<string, number>();
  /** Devices the bridge last said have a socket open; undefined while no bridge link says anything. */
  private connectedNow: ReadonlySet<string> | undefined;
  /** Live devices' public keys, read on every sealed relayed call. A device id never changes key (pairing again
   *  makes a new id), so only revoke() removes one; only live e2e devices are held, so it is as small as the list. */
  private readonly publicKeys = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    readonly codeTtlMs = DEFAULT_CODE_TTL_MS,
  ) {}

  /**
   * Creates a single-use code for a person's next device (the acting admin's when absent: scripts and `npm start`'s
   * first-run link); only its hash is stored.
   */
  createCode(personId?: string): { code: string; expiresAt: number } {
    // Each new pairing settles the ones the apps refused: their devices leave before another is made.
    this.revokeUnused();
    const code = generatePairingCode();
    const now = this.now();
    const expiresAt = now + this.codeTtlMs;
    this.db
      .prepare(
        `INSERT INTO pairing_codes (code_hash, created_at, expires_at, person_id) VALUES (?, ?, ?, coalesce(?, (${ACTING_ADMIN})))`,
      )
      .run(hashPairingCode(code), now, expiresAt, personId ?? null);
    this.changed();
    return { code, expiresAt };
  }

  /** Redeems a code into a device, in one transaction: a code is used at most once, even by concurrent attempts. */
  redeem(code: string, deviceName: string, publicKey?: string): Redemption {
    const now = this.now();
    const result = this.db
      .transaction((): Redemption => {
        const row = this.db
          .prepare<[string], { expires_at: number; used_at: number | null; person_id: string }>(
            "SELECT expires_at, used_at, person_id FROM pairing_codes WHERE code_hash = ?",
          )
          .get(hashPairingCode(code));
        if (!row || row.used_at !== null) return { ok: false, reason: "invalid_code" };
        if (row.expires_at <= now) return { ok: false, reason: "expired" };
        this.db.prepare("UPDATE pairing_codes SET used_at = ? WHERE code_hash = ?").run(now, hashPairingCode(code));
        const deviceId = `dev_${randomUUID()}`;
        const token = generateToken(32);
        this.db
          .prepare(
            "INSERT INTO devices (id, name, token_hash, created_at, public_key, person_id) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run(deviceId, deviceName, sha256Hex(token), now, publicKey ?? null, row.person_id);
        return { ok: true, device_id: deviceId, device_token: token, person_id: row.person_id };
      })
      .immediate();
    this.changed();
    if (result.ok) this.pairings.notify({ device_id: result.device_id, person_id: result.person_id, name: deviceName });
    return result;
  }

  /** Hears each device that joins a person (the new-device notice to that person's other devices). */
  onPaired(listener: (device: PairedDevice) => void): () => void {
    return this.pairings.subscribe(listener);
  }

  /** Every device, or one person's. */
  listDevices(personId?: string): DeviceRecord[] {
    const columns = "SELECT id, name, created_at, last_seen_at, revoked_at, public_key, person_id FROM devices";
    const rows =
      personId === undefined
        ? this.db.prepare<[], DeviceRow>(`${columns} ORDER BY created_at, id`).all()
        : this.db.prepare<[string], DeviceRow>(`${columns} WHERE person_id = ? ORDER BY created_at, id`).all(personId);
    return rows.map((row) => this.recordOf(row));
  }

  private recordOf(row: DeviceRow): DeviceRecord {
    return {
      device_id: row.id,
      name: row.name,
      created_at: iso(row.created_at)!,
      last_seen_at: iso(row.last_seen_at),
      revoked_at: iso(row.revoked_at),
      connected: this.connectedNow === undefined ? null : this.connectedNow.has(row.id),
      mode: row.public_key === null ? "plain" : "e2e",
      person_id: row.person_id,
    };
  }

  /** What the bridge says is connected now (`devices_seen` {connected}); undefined when the link is gone. */
  setConnected(deviceIds: Iterable<string> | undefined): void {
    this.connectedNow = deviceIds === undefined ? undefined : new Set(deviceIds);
  }

  /** Devices with a socket open on the bridge, as it last said; undefined while no bridge link says anything. */
  connectedDevices(): ReadonlySet<string> | undefined {
    return this.connectedNow;
  }

  /** Renames a live device; false when there is no such device or it was revoked. */
  rename(deviceId: string, name: string): boolean {
    const changed =
      this.db.prepare("UPDATE devices SET name = ? WHERE id = ? AND revoked_at IS NULL").run(name, deviceId).changes >
      0;
    if (changed) this.changed();
    return changed;
  }

  /** One device as listDevices shows it, or undefined. */
  device(deviceId: string): DeviceRecord | undefined {
    const row = this.db
      .prepare<[string], DeviceRow>(
        "SELECT id, name, created_at, last_seen_at, revoked_at, public_key, person_id FROM devices WHERE id = ?",
      )
      .get(deviceId);
    return row === undefined ? undefined : this.recordOf(row);
  }

  /** Revokes a device; false when there is no such device. Revoking twice is not an error. */
  revoke(deviceId: string): boolean {
    const exists = this.db.prepare<[string], { id: string }>("SELECT id FROM devices WHERE id = ?").get(deviceId);
    if (!exists) return false;
    this.db.prepare("UPDATE devices SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?").run(this.now(), deviceId);
    this.seenWritten.delete(deviceId);
    this.publicKeys.delete(deviceId);
    // Before the change is announced: nothing is sealed for the remaining devices under a key the revoked one holds.
    this.revocations.notify(deviceId);
    this.changed();
    return true;
  }

  /**
   * Revokes the devices that were paired UNUSED_DEVICE_MS or more before `now` and have never used their token (no
   * HTTP request, no bridge socket): a pairing the app refused after the server had made the device (a server key
   * that did not match the QR's, an app that vanished), whose token nobody will ever present. Answers their ids.
   */
  revokeUnused(now = this.now()): string[] {
    const ids = this.db
      .prepare<[number], { id: string }>(
        "SELECT id FROM devices WHERE revoked_at IS NULL AND last_seen_at IS NULL AND created_at <= ?",
      )
      .all(now - UNUSED_DEVICE_MS)
      .map((row) => row.id);
    for (const id of ids) this.revoke(id);
    return ids;
  }

  /**
   * Records that devices were just active (an HTTP request with their token, a socket on the bridge). Writes only
   * when the stored time is older than LAST_SEEN_RESOLUTION_MS; unknown and revoked devices are ignored.
   */
  markSeen(deviceIds: Iterable<string>): void {
    const now = this.now();
    const due = [...new Set(deviceIds)].filter(
      (id) => now - (this.seenWritten.get(id) ?? -Infinity) >= LAST_SEEN_RESOLUTION_MS,
    );
    if (due.length === 0) return;
    const update = this.db.prepare("UPDATE devices SET last_seen_at = ? WHERE id = ? AND revoked_at IS NULL");
    this.db.transaction(() => {
      // Only ids that named a live device are remembered, so the map stays as small as the device list.
      for (const id of due) if (update.run(now, id).changes > 0) this.seenWritten.set(id, now);
    })();
  }

  /** What the bridge needs to authorize apps: live device token hashes and unexpired unused code hashes. */
  grants(): { devices: DeviceGrant[]; codes: CodeGrant[] } {
    const devices = this.db
      .prepare<[], { device_id: string; token_hash: string; public_key: string | null }>(
        "SELECT id AS device_id, token_hash, public_key FROM devices WHERE revoked_at IS NULL",
      )
      .all()
      .map(({ device_id, token_hash, public_key }): DeviceGrant => ({
        device_id,
        token_hash,
        mode: public_key === null ? "plain" : "e2e",
      }));
    const codes = this.db
      .prepare<[number], { code_hash: string; expires_at: number }>(
        "SELECT code_hash, expires_at FROM pairing_codes WHERE used_at IS NULL AND expires_at > ?",
      )
      .all(this.now());
    return { devices, codes };
  }

  // Used on every sealed relayed call: prepared once, on first use.
  private get statements() {
    return (this.prepared ??= {
      publicKey: this.db.prepare<[string], { public_key: string | null }>(
        "SELECT public_key FROM devices WHERE id = ? AND revoked_at IS NULL",
      ),
      floorRead: this.db.prepare<[string], { relay_floor: number | null }>(
        "SELECT relay_floor FROM devices WHERE id = ?",
      ),
    });
  }
  private prepared:
    | {
        publicKey: Statement<[string], { public_key: string | null }>;
        floorRead: Statement<[string], { relay_floor: number | null }>;
      }
    | undefined;

  /** A live device's public key; undefined for a plain, revoked or unknown device. */
  publicKeyOf(deviceId: string): string | undefined {
    const held = this.publicKeys.get(deviceId);
    if (held !== undefined) return held;
    const stored = this.statements.publicKey.get(deviceId)?.public_key ?? undefined;
    if (stored !== undefined) this.publicKeys.set(deviceId, stored);
    return stored;
  }

  /**
   * The replay guard's floor an earlier version kept in the device's row (0 when none): floors are written to the
   * floor log now (server/e2e/floor-log.ts), which still honours these.
   */
  storedRelayFloor(deviceId: string): number {
    return this.statements.floorRead.get(deviceId)?.relay_floor ?? 0;
  }

  /** Whether some live device is plain: only then does the bridge need an event's plaintext. */
  hasPlainDevices(): boolean {
    this.plainLive ??=
      this.db.prepare("SELECT 1 FROM devices WHERE revoked_at IS NULL AND public_key IS NULL LIMIT 1").get() !==
      undefined;
    return this.plainLive;
  }

  onChange(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }

  /** Hears each revocation before the change is announced (the content key rotates there). */
  onRevoke(listener: (deviceId: string) => void): () => void {
    return this.revocations.subscribe(listener);
  }

  private changed(): void {
    this.plainLive = undefined;
    this.listeners.notify();
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Last-seen is advisory: a failed write (a busy database) is logged and whatever asked goes on. */
export function noteDevicesSeen(
  ctx: { pairing: PairingService; log: Pick<FastifyBaseLogger, "warn"> },
  deviceIds: Iterable<string>,
): void {
  try {
    ctx.pairing.markSeen(deviceIds);
  } catch (error) {
    ctx.log.warn({ err: error }, "could not record that devices were seen");
  }
}
