// The authenticator on its own (server/auth/authenticator.ts), over a real SQLite file and no server: who a bearer
// token or a relay pass proves, and what it refuses (docs/server.md "HTTP auth"). Fast on purpose: mutation testing
// runs these for every mutant of the file (docs/testing.md "Mutation score").
import { describe, expect, it } from "vitest";
import { Authenticator } from "../../server/auth/authenticator.ts";
import type { PersonLookup } from "../../server/auth/caller.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import type { Db } from "../../server/db/database.ts";
import { useTempDatabases } from "../support/temp-database.ts";

const ADMIN = "the-admin-token";
const LOCAL = "the-local-admin-token-of-this-process";
const people: PersonLookup = {
  actingAdmin: () => ({ id: "per_admin", role: "admin" }),
  ofDevice: (id) => (id === "dev_gone_person" ? undefined : { id: `per_of_${id}`, role: "member", removed_at: null }),
  ofProducer: (id) => ({ id: `per_of_${id}`, role: "member", removed_at: null }),
};

const freshDatabase = useTempDatabases();

function setUp(): { db: Db; auth: Authenticator } {
  const { db } = freshDatabase();
  const addDevice = db.prepare("INSERT INTO devices (id, name, token_hash, created_at) VALUES (?, 'phone', ?, 0)");
  addDevice.run("dev_a", sha256Hex("token-a"));
  addDevice.run("dev_b", sha256Hex("token-b"));
  addDevice.run("dev_gone_person", sha256Hex("token-gone"));
  db.prepare("INSERT INTO producers (id, name, token_hash, created_at) VALUES ('prd_1', 'ci', ?, 0)").run(
    sha256Hex("token-producer"),
  );
  return { db, auth: new Authenticator(db, sha256Hex(ADMIN), LOCAL, people) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const revoke = (db: Db, id: string) => db.prepare("UPDATE devices SET revoked_at = 1 WHERE id = ?").run(id);

describe("a bearer token", () => {
  it("proves the admin, by the admin token or this process's local one", () => {
    const { auth } = setUp();
    expect(auth.authenticate(bearer(ADMIN))).toEqual({ kind: "admin", person_id: "per_admin", role: "admin" });
    expect(auth.authenticate(bearer(LOCAL))).toMatchObject({ kind: "admin" });
    expect(auth.authenticate({ authorization: `bearer   ${ADMIN}  ` })).toMatchObject({ kind: "admin" });
  });

  it("proves a live device and a producer, each with its person", () => {
    const { auth } = setUp();
    expect(auth.authenticate(bearer("token-a"))).toEqual({
      kind: "device",
      device_id: "dev_a",
      person_id: "per_of_dev_a",
      role: "member",
    });
    expect(auth.authenticate(bearer("token-producer"))).toEqual({
      kind: "producer",
      producer_id: "prd_1",
      producer_name: "ci",
      person_id: "per_of_prd_1",
      role: "member",
    });
  });

  it("proves nobody when missing, malformed, unknown, or its person is gone", () => {
    const { auth } = setUp();
    for (const authorization of [undefined, "", "Bearer", "Bearer ", `Basic ${ADMIN}`, `Bearer ${ADMIN} extra`])
      expect(auth.authenticate({ authorization })).toBeUndefined();
    expect(auth.authenticate({ authorization: `x Bearer ${ADMIN}` })).toBeUndefined();
    expect(auth.authenticate(bearer("token-unknown"))).toBeUndefined();
    expect(auth.authenticate(bearer("token-gone"))).toBeUndefined();
  });

  it("of a device revoked is refused once the authenticator forgets, even after it was remembered", () => {
    const { db, auth } = setUp();
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
    revoke(db, "dev_a");
    auth.forget();
    expect(auth.authenticate(bearer("token-a"))).toBeUndefined();
    expect(auth.authenticate(bearer("token-b"))).toMatchObject({ device_id: "dev_b" });
  });

  it("is remembered while live: a second call does not ask the database", () => {
    const { db, auth } = setUp();
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
    revoke(db, "dev_a");
    // Not forgotten yet (runtime.ts forgets on every revocation): the memory answers.
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
  });

  it("remembers more than one device, and forgets them all once 10,000 are remembered (the memory is bounded)", () => {
    const { db, auth } = setUp();
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
    expect(auth.authenticate(bearer("token-b"))).toMatchObject({ device_id: "dev_b" });
    revoke(db, "dev_a");
    // Remembering dev_b kept dev_a: the memory still answers for it.
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
    const addDevice = db.prepare("INSERT INTO devices (id, name, token_hash, created_at) VALUES (?, 'phone', ?, 0)");
    db.transaction(() => {
      for (let i = 0; i < 9_999; i++) addDevice.run(`dev_${i}`, sha256Hex(`token-${i}`));
    })();
    // dev_a, dev_b and 9,998 more: 10,000 remembered, dev_a still among them.
    for (let i = 0; i < 9_998; i++) auth.authenticate(bearer(`token-${i}`));
    expect(auth.authenticate(bearer("token-a"))).toMatchObject({ device_id: "dev_a" });
    // The 10,001st is remembered after the memory is emptied: dev_a is asked of the database again, and refused.
    expect(auth.authenticate(bearer("token-9998"))).toMatchObject({ device_id: "dev_9998" });
    expect(auth.authenticate(bearer("token-a"))).toBeUndefined();
  });

  it("of the admin changes with setAdminTokenHash: the old one stops at once", () => {
    const { auth } = setUp();
    auth.setAdminTokenHash(sha256Hex("new-admin"));
    expect(auth.authenticate(bearer(ADMIN))).toBeUndefined();
    expect(auth.authenticate(bearer("new-admin"))).toMatchObject({ kind: "admin" });
    expect(auth.authenticate(bearer(LOCAL))).toMatchObject({ kind: "admin" });
  });
});

describe("a relay pass", () => {
  it("proves its live device, and is the whole proof: the header is not read", () => {
    const { auth } = setUp();
    const pass = auth.relayPass("dev_b");
    expect(pass.device_id).toBe("dev_b");
    expect(pass.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(auth.authenticate({ relayed: pass })).toMatchObject({ kind: "device", device_id: "dev_b" });
    expect(auth.authenticate({ relayed: pass, authorization: `Bearer ${ADMIN}` })).toMatchObject({ kind: "device" });
    expect(auth.authenticate({ relayed: auth.relayPass("dev_unknown"), authorization: `Bearer ${ADMIN}` })).toBe(
      undefined,
    );
  });

  it("with another process's secret, or a malformed one, proves nobody", () => {
    const { auth } = setUp();
    const other = setUp().auth.relayPass("dev_a");
    const own = auth.relayPass("dev_a").secret;
    const flipped = (own[0] === "0" ? "1" : "0") + own.slice(1);
    for (const secret of [other.secret, flipped, own.toUpperCase(), own.slice(1), `${own}0`, ""])
      expect(auth.authenticate({ relayed: { secret, device_id: "dev_a" } })).toBeUndefined();
  });

  it("for a revoked device is refused once forgotten, and remembered while live", () => {
    const { db, auth } = setUp();
    const pass = auth.relayPass("dev_a");
    expect(auth.authenticate({ relayed: pass })).toMatchObject({ device_id: "dev_a" });
    revoke(db, "dev_a");
    expect(auth.authenticate({ relayed: pass })).toMatchObject({ device_id: "dev_a" });
    auth.forget();
    expect(auth.authenticate({ relayed: pass })).toBeUndefined();
    revoke(db, "dev_b");
    expect(auth.authenticate({ relayed: auth.relayPass("dev_b") })).toBeUndefined();
  });

  it("for a revoked or unknown device is refused every time: a refusal is never remembered as live", () => {
    const { db, auth } = setUp();
    revoke(db, "dev_b");
    for (const deviceId of ["dev_b", "dev_b", "dev_unknown", "dev_unknown"])
      expect(auth.authenticate({ relayed: auth.relayPass(deviceId) })).toBeUndefined();
  });

  it("of a device known only by its pass is forgotten too (its id was remembered without a token hash)", () => {
    const { db, auth } = setUp();
    expect(auth.authenticate({ relayed: auth.relayPass("dev_b") })).toBeDefined();
    revoke(db, "dev_b");
    auth.forget();
    expect(auth.authenticate(bearer("token-b"))).toBeUndefined();
    expect(auth.authenticate({ relayed: auth.relayPass("dev_b") })).toBeUndefined();
  });
});
