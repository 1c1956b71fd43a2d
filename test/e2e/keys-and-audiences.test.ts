// The server's keys and audiences on their own (server/e2e/content-keys.ts, audiences.ts, rotation.ts, server-key.ts,
// end-to-end.ts), over a real SQLite file and no server (docs/security.md "Keys and their lifecycle"): which key seals
// what, which keys a device is given, who an event is for, what a revocation or a deleted chat rotates, and the key
// file. Fast on purpose: mutation testing runs these for every mutant of these files (docs/testing.md).
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyEvent } from "../../client/wire/index.ts";
import {
  generateKeyPair,
  openContentKey,
  openCredentials,
  openEvent,
  publicKeyOf,
  sharedKey,
} from "../../client/wire/crypto/index.ts";
import { formatEventId } from "../../client/wire/event-id.ts";
import type { Db } from "../../server/db/database.ts";
import { Audiences } from "../../server/e2e/audiences.ts";
import { ContentKeys, EVERYONE, KEYS_GIVEN } from "../../server/e2e/content-keys.ts";
import { EndToEnd } from "../../server/e2e/end-to-end.ts";
import { ReplayGuard } from "../../server/e2e/replay-guard.ts";
import { rotateForRevocation, rotationForDeletedChat } from "../../server/e2e/rotation.ts";
import { ensureServerKey, SERVER_KEY_FILE } from "../../server/e2e/server-key.ts";
import { useTempDatabases } from "../support/temp-database.ts";
import { tempDir } from "../support/temp-dir.ts";

const freshDatabase = useTempDatabases();

function database(): { db: Db; dir: string } {
  const { db, dir } = freshDatabase();
  db.prepare("DELETE FROM people").run(); // the migration's owner: each test names its own people
  return { db, dir };
}

const addPerson = (db: Db, id: string, removed = false) =>
  db
    .prepare(
      "INSERT INTO people (id, name, role, agents, created_at, removed_at) VALUES (?, ?, 'member', '\"*\"', 0, ?)",
    )
    .run(id, id, removed ? 1 : null);
const addChat = (db: Db, id: string, owner: string | null, ...shared: string[]) => {
  db.prepare(
    "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id, owner_id) VALUES (?, 'a', 0, 0, 0, ?)",
  ).run(id, owner);
  for (const person of shared)
    db.prepare("INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES (?, ?, 'read', 0)").run(
      id,
      person,
    );
};
const addDevice = (db: Db, id: string, person: string | null, publicKey: string | null = null, revoked = false) =>
  db
    .prepare(
      "INSERT INTO devices (id, name, token_hash, created_at, person_id, public_key, revoked_at) VALUES (?, 'd', ?, 0, ?, ?, ?)",
    )
    .run(id, `hash-${id}`, person, publicKey, revoked ? 1 : null);

/** An event with a log row whose audience is `audience` (null: none named). */
function eventWith(
  audience: string | null,
  session?: string,
): { event: AnyEvent; audienceOf: (id: number) => string | null } {
  const event = {
    event_id: formatEventId(7),
    type: "x",
    ...(session ? { session_id: session } : {}),
  } as unknown as AnyEvent;
  return { event, audienceOf: (id) => (id === 7 ? audience : null) };
}

describe("content keys", () => {
  it("make a scope's first key on first use and keep it current until rotated; ids count up across scopes", () => {
    const { db } = database();
    const keys = new ContentKeys(db, () => 5);
    const first = keys.current("per_a");
    expect(first.key).toHaveLength(32);
    expect(keys.current("per_a")).toBe(first);
    expect(new ContentKeys(db, () => 5).current("per_a")).toEqual(first); // read back from the database
    const other = keys.current(EVERYONE);
    expect(other.keyId).toBe(first.keyId + 1);
    const next = keys.rotate("per_a");
    expect(next.keyId).toBe(other.keyId + 1);
    expect(next.key).not.toEqual(first.key);
    expect(keys.current("per_a")).toBe(next);
    expect(new ContentKeys(db, () => 5).current("per_a")).toEqual(next);
    expect(db.prepare("SELECT created_at FROM content_keys WHERE key_id = ?").get(next.keyId)).toEqual({
      created_at: 5,
    });
  });

  it("give a scope's newest keys, newest first, at most the limit, and none of another scope", () => {
    const { db } = database();
    const keys = new ContentKeys(db, () => 0);
    const made = [keys.current("per_a"), keys.rotate("per_a"), keys.rotate("per_a")];
    keys.rotate("per_b");
    expect(keys.recentKeys("per_a").map((k) => k.keyId)).toEqual(made.map((k) => k.keyId).reverse());
    expect(keys.recentKeys("per_a", 2)).toEqual([made[2], made[1]]);
    expect(keys.recentKeys("per_new")).toHaveLength(1);
    expect(KEYS_GIVEN).toBe(100);
  });

  it("withhold a scope's older keys after a deletion, and only that scope's", () => {
    const { db } = database();
    const keys = new ContentKeys(db, () => 0);
    keys.current("per_a");
    const kept = keys.current("per_b");
    const fresh = keys.rotateForDeletion("per_a");
    expect(keys.recentKeys("per_a")).toEqual([fresh]);
    expect(keys.current("per_a")).toBe(fresh);
    const later = keys.rotate("per_a");
    expect(new ContentKeys(db, () => 0).recentKeys("per_a")).toEqual([later, fresh]);
    expect(keys.recentKeys("per_b")).toEqual([kept]);
  });
});

describe("audiences", () => {
  function audiences(db: Db, audienceOf: (id: number) => string | null = () => null): Audiences {
    return new Audiences(db, { audienceOf });
  }

  it("tag a person with 22 characters of a keyed hash: stable per database, different across servers", () => {
    const { db } = database();
    const tag = audiences(db).tagOf("per_a");
    expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(audiences(db).tagOf("per_a")).toBe(tag);
    expect(audiences(db).tagOf("per_b")).not.toBe(tag);
    expect(audiences(database().db).tagOf("per_a")).not.toBe(tag);
  });

  it("give a chat's event to its live owner and share holders, a chat-less event to everyone", () => {
    const { db } = database();
    for (const id of ["per_a", "per_b", "per_c"]) addPerson(db, id);
    addPerson(db, "per_gone", true);
    addChat(db, "s_1", "per_a", "per_b", "per_gone");
    const a = audiences(db);
    expect(a.of(eventWith(null, "s_1").event)).toEqual({ everyone: false, people: ["per_a", "per_b"] });
    expect(a.peopleOfChat("s_1")).toEqual(["per_a", "per_b"]);
    expect(a.peopleOfChat("s_unknown")).toEqual([]);
    expect(a.of(eventWith(null).event)).toEqual({ everyone: true });
    expect(a.livePeople()).toEqual(["per_a", "per_b", "per_c"]);
  });

  it("follow the people an event's row names, live ones only; 'all' follows the chat", () => {
    const { db } = database();
    for (const id of ["per_a", "per_b"]) addPerson(db, id);
    addPerson(db, "per_gone", true);
    addChat(db, "s_1", "per_a");
    const named = eventWith(JSON.stringify(["per_b", "per_gone", 3]), "s_1");
    expect(audiences(db, named.audienceOf).of(named.event)).toEqual({ everyone: false, people: ["per_b"] });
    const all = eventWith(JSON.stringify("all"), "s_1");
    expect(audiences(db, all.audienceOf).of(all.event)).toEqual({ everyone: false, people: ["per_a"] });
    const allNoChat = eventWith(JSON.stringify("all"));
    expect(audiences(db, allNoChat.audienceOf).of(allNoChat.event)).toEqual({ everyone: true });
    const odd = eventWith(JSON.stringify({ people: ["per_a"] }));
    expect(audiences(db, odd.audienceOf).of(odd.event)).toEqual({ everyone: false, people: [] });
  });

  it("give a row that names no person to the sole person, and to nobody once there are two", () => {
    const { db } = database();
    addPerson(db, "per_a");
    addChat(db, "s_old", null);
    addDevice(db, "dev_old", null);
    const a = audiences(db);
    expect(a.peopleOfChat("s_old")).toEqual(["per_a"]);
    expect(a.personOfDevice("dev_old")).toBe("per_a");
    expect(a.devicePeople()).toEqual(new Map([["dev_old", "per_a"]]));
    addPerson(db, "per_b");
    expect(a.peopleOfChat("s_old")).toEqual([]);
    expect(a.personOfDevice("dev_old")).toBeUndefined();
    expect(a.devicePeople()).toEqual(new Map());
    expect(a.personOfDevice("dev_unknown")).toBeUndefined();
  });

  it("know each live device's person, a revoked device's too, and who has a live plain device", () => {
    const { db } = database();
    for (const id of ["per_a", "per_b", "per_c"]) addPerson(db, id);
    const key = generateKeyPair().publicKey;
    addDevice(db, "dev_a", "per_a");
    addDevice(db, "dev_b", "per_b", key);
    addDevice(db, "dev_c", "per_c", null, true);
    addDevice(db, "dev_x", null);
    const a = audiences(db);
    expect(a.devicePeople()).toEqual(
      new Map([
        ["dev_a", "per_a"],
        ["dev_b", "per_b"],
      ]),
    );
    expect(a.personOfDevice("dev_c")).toBe("per_c");
    expect(a.withPlainDevices()).toEqual(new Set(["per_a"]));
    addDevice(db, "dev_c2", "per_c");
    expect(a.withPlainDevices()).toEqual(new Set(["per_a"])); // remembered until devices change
    a.devicesChanged();
    expect(a.withPlainDevices()).toEqual(new Set(["per_a", "per_c"]));
  });

  it("give a plain device of no person to the sole person only", () => {
    const { db } = database();
    addPerson(db, "per_a");
    addDevice(db, "dev_x", null);
    expect(audiences(db).withPlainDevices()).toEqual(new Set(["per_a"]));
    addPerson(db, "per_b");
    expect(audiences(db).withPlainDevices()).toEqual(new Set());
  });
});

describe("rotation", () => {
  function endToEnd(db: Db, dir: string): EndToEnd {
    const audiences = new Audiences(db, { audienceOf: () => null });
    const guard = new ReplayGuard({ load: () => 0, saveAll: () => undefined });
    return new EndToEnd("srv_1", generateKeyPair(), new ContentKeys(db, () => 0), audiences, guard, false);
  }

  it("after a revocation: the device's person and everyone get new keys, nobody else", () => {
    const { db, dir } = database();
    for (const id of ["per_a", "per_b"]) addPerson(db, id);
    addDevice(db, "dev_a", "per_a");
    const e2e = endToEnd(db, dir);
    const before = ["per_a", "per_b", EVERYONE].map((scope) => e2e.contentKeys.current(scope).keyId);
    rotateForRevocation(e2e, "dev_a");
    const after = ["per_a", "per_b", EVERYONE].map((scope) => e2e.contentKeys.current(scope).keyId);
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBeGreaterThan(before[2]!);
    rotateForRevocation(e2e, "dev_unknown");
    expect(e2e.contentKeys.current("per_a").keyId).toBe(after[0]);
    expect(e2e.contentKeys.current(EVERYONE).keyId).toBeGreaterThan(after[2]!);
  });

  it("after a chat's deletion: its people read before, rotated once it is gone, their older keys withheld", () => {
    const { db, dir } = database();
    for (const id of ["per_a", "per_b", "per_c"]) addPerson(db, id);
    addChat(db, "s_1", "per_a", "per_b");
    const e2e = endToEnd(db, dir);
    const old = ["per_a", "per_b", "per_c"].map((scope) => e2e.contentKeys.current(scope));
    const rotate = rotationForDeletedChat(e2e, "s_1");
    db.prepare("DELETE FROM session_shares").run();
    db.prepare("DELETE FROM sessions").run();
    expect(e2e.contentKeys.current("per_a")).toBe(old[0]); // nothing before the chat is gone
    rotate();
    expect(e2e.contentKeys.recentKeys("per_a")).toEqual([e2e.contentKeys.current("per_a")]);
    expect(e2e.contentKeys.recentKeys("per_b")).toHaveLength(1);
    expect(e2e.contentKeys.current("per_b").keyId).not.toBe(old[1]!.keyId);
    expect(e2e.contentKeys.recentKeys("per_c")).toEqual([old[2]]);
  });
});

describe("the server's end", () => {
  it("seals events under the scope's current key, and gives a device its person's and everyone's keys only", () => {
    const { db } = database();
    const server = generateKeyPair();
    const device = generateKeyPair();
    const keys = new ContentKeys(db, () => 0);
    const guard = new ReplayGuard({ load: () => 0, saveAll: () => undefined });
    const e2e = new EndToEnd("srv_1", server, keys, new Audiences(db, { audienceOf: () => null }), guard, true);
    expect(e2e.publicKey).toBe(server.publicKey);
    expect(e2e.requireE2e).toBe(true);
    expect(e2e.fingerprint).toMatch(/\S/);
    const envelope = e2e.sealEvent("per_a", "1-1", '{"a":1}');
    expect(openEvent(keys.current("per_a").key, "srv_1", envelope)).toBe('{"a":1}');
    keys.current("per_b");
    const given = e2e.keysFor("dev_1", device.publicKey, "per_a");
    const ids = [keys.current("per_a").keyId, keys.current(EVERYONE).keyId];
    expect(given.map((k) => k.key_id)).toEqual(ids);
    const opened = openContentKey(device.secretKey, "srv_1", "dev_1", given[0]!.key_id, given[0]!.box);
    expect(opened).toEqual(keys.current("per_a").key);
    expect(e2e.keysFor("dev_1", device.publicKey, undefined).map((k) => k.key_id)).toEqual([ids[1]]);
  });

  it("seals the pairing answer and derives relay keys the device derives alike, cached per device key", () => {
    const { db } = database();
    const server = generateKeyPair();
    const device = generateKeyPair();
    const guard = new ReplayGuard({ load: () => 0, saveAll: () => undefined });
    const audiences = new Audiences(db, { audienceOf: () => null });
    const e2e = new EndToEnd("srv_1", server, new ContentKeys(db, () => 0), audiences, guard, false);
    const pairing = sharedKey(device.secretKey, server.publicKey, "pairing", server.publicKey, device.publicKey);
    expect(openCredentials(pairing, "srv_1", "dev_1", e2e.sealPairing(device.publicKey, "dev_1", "{}"))).toBe("{}");
    const relay = sharedKey(device.secretKey, server.publicKey, "relay", server.publicKey, device.publicKey);
    expect(e2e.relayKey(device.publicKey)).toEqual(relay);
    expect(e2e.relayKey(device.publicKey)).toBe(e2e.relayKey(device.publicKey));
    expect(relay).not.toEqual(pairing);
    e2e.rejected("stale");
    e2e.rejected("stale");
    expect(e2e.rejections).toEqual({ tampered: 0, replayed: 0, stale: 2 });
  });
});

describe("the server key file", () => {
  const keyDirs: string[] = [];
  afterEach(() => {
    for (const dir of keyDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is made once (0600 in a 0700 folder) and read back at the next start", () => {
    const dir = join(tempDir(), "data");
    keyDirs.push(dir);
    const made = ensureServerKey(dir);
    const file = join(dir, SERVER_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify({ secret_key: made.secretKey })}\n`);
    expect(made.publicKey).toBe(publicKeyOf(made.secretKey));
    expect(ensureServerKey(dir)).toEqual(made);
  });

  it("damaged stops the start instead of making a new identity", () => {
    const dir = tempDir();
    keyDirs.push(dir);
    writeFileSync(join(dir, SERVER_KEY_FILE), JSON.stringify({ secret_key: "short" }), { mode: 0o644 });
    expect(() => ensureServerKey(dir)).toThrow();
    expect(statSync(join(dir, SERVER_KEY_FILE)).mode & 0o777).toBe(0o600);
    // A whole key with anything before or after it is damaged too.
    const whole = generateKeyPair().secretKey;
    for (const secret of [`A${whole}`, `${whole}A`]) {
      writeFileSync(join(dir, SERVER_KEY_FILE), JSON.stringify({ secret_key: secret }));
      expect(() => ensureServerKey(dir)).toThrow();
    }
    writeFileSync(join(dir, SERVER_KEY_FILE), JSON.stringify({ secret_key: whole }));
    expect(ensureServerKey(dir).secretKey).toBe(whole);
  });
});
