// The pairing service on its own (server/pairing/pairing-service.ts), over a real SQLite file and a hand-moved clock,
// no server: a code pairs one device once and only before it expires, devices are listed, renamed and revoked, what
// the bridge is granted, last-seen writes, and what listeners hear (docs/bridge.md "Pairing and devices"). Fast on
// purpose: mutation testing runs these for every mutant of the file (docs/testing.md "Mutation score").
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../../client/wire/crypto/index.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import type { Db } from "../../server/db/database.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import {
  DEFAULT_CODE_TTL_MS,
  noteDevicesSeen,
  PairingService,
  UNUSED_DEVICE_MS,
  type PairedDevice,
} from "../../server/pairing/pairing-service.ts";
import { useTempDatabases } from "../support/temp-database.ts";

const freshDatabase = useTempDatabases();

const START = Date.UTC(2026, 10, 29);

function setUp(ttl?: number) {
  const { db } = freshDatabase();
  const clock = { now: START };
  const pairing = new PairingService(db, () => clock.now, ttl);
  const admin = db.prepare<[], { id: string }>("SELECT id FROM people").get()!.id;
  return { db, clock, pairing, admin };
}

function paired(pairing: PairingService, name = "phone", publicKey?: string, person?: string) {
  const result = pairing.redeem(pairing.createCode(person).code, name, publicKey);
  if (!result.ok) throw new Error(result.reason);
  return result;
}

describe("codes", () => {
  it("pair one device once, for the acting admin when made for nobody, and store only the hashes", () => {
    const { db, pairing, admin } = setUp();
    const { code, expiresAt } = pairing.createCode();
    expect(expiresAt).toBe(START + DEFAULT_CODE_TTL_MS);
    const result = pairing.redeem(code, "phone");
    expect(result).toMatchObject({
      ok: true,
      person_id: admin,
      device_id: expect.stringMatching(/^dev_[0-9a-f-]{36}$/),
    });
    if (!result.ok) return;
    expect(result.device_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pairing.redeem(code, "again")).toEqual({ ok: false, reason: "invalid_code" });
    const row = db.prepare("SELECT token_hash, name, created_at FROM devices WHERE id = ?").get(result.device_id);
    expect(row).toEqual({ token_hash: sha256Hex(result.device_token), name: "phone", created_at: START });
    const codeRow = db.prepare("SELECT code_hash, used_at FROM pairing_codes").get();
    expect(codeRow).toEqual({ code_hash: hashPairingCode(code), used_at: START });
  });

  it("made for a person pair that person's device", () => {
    const { db, pairing } = setUp();
    db.prepare(
      "INSERT INTO people (id, name, role, agents, created_at) VALUES ('per_b', 'B', 'member', '\"*\"', 1)",
    ).run();
    expect(paired(pairing, "phone", undefined, "per_b").person_id).toBe("per_b");
  });

  it("expire at their time to live: the last millisecond before pairs, that moment does not", () => {
    const { clock, pairing } = setUp(1000);
    const first = pairing.createCode().code;
    const second = pairing.createCode().code;
    clock.now += 999;
    expect(pairing.redeem(first, "a").ok).toBe(true);
    clock.now += 1;
    expect(pairing.redeem(second, "b")).toEqual({ ok: false, reason: "expired" });
    expect(pairing.redeem("ABCDE-FGHJK", "c")).toEqual({ ok: false, reason: "invalid_code" });
  });

  it("are granted to the bridge while unused and unexpired; live devices with their mode", () => {
    const { clock, pairing } = setUp(1000);
    const e2e = paired(pairing, "e2e", generateKeyPair().publicKey);
    const plain = paired(pairing, "plain");
    const { code } = pairing.createCode();
    const grants = pairing.grants();
    expect(grants.codes).toEqual([{ code_hash: hashPairingCode(code), expires_at: START + 1000 }]);
    expect(grants.devices).toEqual([
      expect.objectContaining({ device_id: e2e.device_id, token_hash: sha256Hex(e2e.device_token), mode: "e2e" }),
      expect.objectContaining({ device_id: plain.device_id, mode: "plain" }),
    ]);
    clock.now += 1000;
    pairing.revoke(plain.device_id);
    expect(pairing.grants()).toEqual({ codes: [], devices: [expect.objectContaining({ device_id: e2e.device_id })] });
  });
});

describe("devices", () => {
  it("are listed in pairing order, all or one person's, with their mode and connection", () => {
    const { clock, pairing, admin } = setUp();
    const key = generateKeyPair().publicKey;
    const a = paired(pairing, "a", key);
    clock.now += 5;
    const b = paired(pairing, "b");
    expect(pairing.listDevices().map((d) => d.device_id)).toEqual([a.device_id, b.device_id]);
    expect(pairing.listDevices("per_nobody")).toEqual([]);
    expect(pairing.listDevices(admin)).toHaveLength(2);
    expect(pairing.device(a.device_id)).toEqual({
      device_id: a.device_id,
      name: "a",
      created_at: new Date(START).toISOString(),
      last_seen_at: null,
      revoked_at: null,
      connected: null,
      mode: "e2e",
      person_id: admin,
    });
    expect(pairing.device(b.device_id)?.mode).toBe("plain");
    pairing.setConnected([b.device_id]);
    expect(pairing.connectedDevices()).toEqual(new Set([b.device_id]));
    expect(pairing.listDevices().map((d) => d.connected)).toEqual([false, true]);
    pairing.setConnected(undefined);
    expect(pairing.device(b.device_id)?.connected).toBeNull();
    expect(pairing.device("dev_unknown")).toBeUndefined();
  });

  it("are renamed while live only, a rename heard as a change and a refused one not", () => {
    const { pairing } = setUp();
    const a = paired(pairing);
    let changes = 0;
    pairing.onChange(() => changes++);
    expect(pairing.rename(a.device_id, "tablet")).toBe(true);
    expect(changes).toBe(1);
    expect(pairing.device(a.device_id)?.name).toBe("tablet");
    expect(pairing.rename("dev_unknown", "x")).toBe(false);
    expect(changes).toBe(1);
    pairing.revoke(a.device_id);
    expect(pairing.rename(a.device_id, "y")).toBe(false);
    expect(pairing.device(a.device_id)?.name).toBe("tablet");
  });

  it("are revoked once (the first time kept), the revocation heard before the change", () => {
    const { clock, pairing } = setUp();
    const a = paired(pairing);
    const heard: string[] = [];
    pairing.onRevoke((id) => heard.push(`revoke ${id}`));
    pairing.onChange(() => heard.push("change"));
    expect(pairing.revoke(a.device_id)).toBe(true);
    expect(heard).toEqual([`revoke ${a.device_id}`, "change"]);
    clock.now += 10;
    expect(pairing.revoke(a.device_id)).toBe(true);
    expect(pairing.device(a.device_id)?.revoked_at).toBe(new Date(START).toISOString());
    expect(pairing.revoke("dev_unknown")).toBe(false);
  });

  it("never used an hour after pairing are revoked by the next code; used or younger ones stay", () => {
    const { clock, pairing } = setUp();
    const unused = paired(pairing, "unused");
    const used = paired(pairing, "used");
    pairing.markSeen([used.device_id]);
    clock.now += 1;
    const young = paired(pairing, "young");
    clock.now += UNUSED_DEVICE_MS - 1;
    pairing.createCode();
    expect(pairing.device(unused.device_id)?.revoked_at).not.toBeNull();
    expect(pairing.device(used.device_id)?.revoked_at).toBeNull();
    expect(pairing.device(young.device_id)?.revoked_at).toBeNull();
    expect(pairing.revokeUnused(clock.now + 1)).toEqual([young.device_id]);
    expect(UNUSED_DEVICE_MS).toBe(60 * 60 * 1000); // an hour, as docs/security.md says
  });

  it("seen are written at most once a minute each; unknown and revoked ones are ignored", () => {
    const { db, clock, pairing } = setUp();
    const a = paired(pairing);
    const b = paired(pairing);
    const seen = (id: string) => pairing.device(id)?.last_seen_at;
    pairing.markSeen([a.device_id, a.device_id, "dev_unknown"]);
    expect(seen(a.device_id)).toBe(new Date(START).toISOString());
    clock.now += 59_999;
    pairing.markSeen([a.device_id]);
    expect(seen(a.device_id)).toBe(new Date(START).toISOString());
    clock.now += 1;
    pairing.markSeen([a.device_id]);
    expect(seen(a.device_id)).toBe(new Date(START + 60_000).toISOString());
    pairing.revoke(b.device_id);
    pairing.markSeen([b.device_id]);
    expect(seen(b.device_id)).toBeNull();
    db.close();
    const warned: unknown[] = [];
    noteDevicesSeen({ pairing, log: { warn: (...args: unknown[]) => warned.push(args) } as never }, [a.device_id]);
    expect(warned).toHaveLength(0); // written within the minute: nothing asked of the database
    clock.now += 60_000;
    noteDevicesSeen({ pairing, log: { warn: (...args: unknown[]) => warned.push(args) } as never }, [a.device_id]);
    expect(warned).toEqual([[{ err: expect.any(Error) }, "could not record that devices were seen"]]);
  });

  it("e2e give their public key while live; plain ones none; a stored floor reads 0 when none", () => {
    const { db, pairing } = setUp();
    const key = generateKeyPair().publicKey;
    const a = paired(pairing, "a", key);
    const b = paired(pairing, "b");
    expect(pairing.publicKeyOf(a.device_id)).toBe(key);
    // Remembered once read: a sealed call does not ask the database for it again.
    db.prepare("UPDATE devices SET public_key = ? WHERE id = ?").run(generateKeyPair().publicKey, a.device_id);
    expect(pairing.publicKeyOf(a.device_id)).toBe(key);
    expect(pairing.publicKeyOf(b.device_id)).toBeUndefined();
    expect(pairing.publicKeyOf("dev_unknown")).toBeUndefined();
    pairing.revoke(a.device_id);
    expect(pairing.publicKeyOf(a.device_id)).toBeUndefined();
    expect(pairing.storedRelayFloor(b.device_id)).toBe(0);
    db.prepare("UPDATE devices SET relay_floor = 42 WHERE id = ?").run(b.device_id);
    expect(pairing.storedRelayFloor(b.device_id)).toBe(42);
    expect(pairing.storedRelayFloor("dev_unknown")).toBe(0);
  });

  it("plain and live make hasPlainDevices true, read again after each change", () => {
    const { pairing } = setUp();
    expect(pairing.hasPlainDevices()).toBe(false);
    paired(pairing, "e2e", generateKeyPair().publicKey);
    expect(pairing.hasPlainDevices()).toBe(false);
    const plain = paired(pairing, "plain");
    expect(pairing.hasPlainDevices()).toBe(true);
    pairing.revoke(plain.device_id);
    expect(pairing.hasPlainDevices()).toBe(false);
  });

  it("paired are announced with their person and name; a refused code announces nothing", () => {
    const { pairing, admin } = setUp();
    const heard: PairedDevice[] = [];
    const changes: number[] = [];
    const stop = pairing.onPaired((device) => heard.push(device));
    pairing.onChange(() => changes.push(1));
    const a = paired(pairing, "a");
    expect(heard).toEqual([{ device_id: a.device_id, person_id: admin, name: "a" }]);
    expect(changes).toHaveLength(2); // the code made, then redeemed
    pairing.redeem("ABCDE-FGHJK", "x");
    expect(heard).toHaveLength(1);
    stop();
    paired(pairing, "b");
    expect(heard).toHaveLength(1);
  });
});
