// The chat guard and a chat's audience on their own (server/people/chat-guard.ts, chat-audiences.ts), over a real
// SQLite file and its real audit log, without a server: an unknown or unseen chat is 404 session_not_found naming it,
// a chat seen but not for this action is 403 share_access_denied naming the share, what each holder may do, the admin
// token's reach into another person's chat, audited; a transfer, a share holder's flags, a removed person's shares,
// the chats a person owns, and the rules as SQL (VISIBLE_SESSIONS, VISIBLE_EVENT). Fast on purpose: mutation testing
// runs these for every mutant of the files (docs/testing.md "Mutation score"); test/people/guard-rules.test.ts and
// people-routes.test.ts drive the same through the routes.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Caller } from "../../server/auth/caller.ts";
import { systemClock } from "../../server/clock.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { DomainError } from "../../server/errors.ts";
import type { ChatAction } from "../../server/people/access.ts";
import { AuditLog } from "../../server/people/audit-log.ts";
import { ChatAudiences, VISIBLE_EVENT, VISIBLE_SESSIONS } from "../../server/people/chat-audiences.ts";
import { ChatGuard } from "../../server/people/chat-guard.ts";
import { tempDir } from "../support/temp-dir.ts";

const opened: { db: Db; dir: string }[] = [];
afterEach(() => {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function setUp() {
  const dir = tempDir();
  const db = openDatabase(join(dir, "server.sqlite"));
  opened.push({ db, dir });
  const person = db.prepare(
    "INSERT INTO people (id, name, role, agents, created_at) VALUES (?, ?, 'member', '\"*\"', 0)",
  );
  for (const id of ["per_owner", "per_reader", "per_writer", "per_other"]) person.run(id, id);
  db.prepare(
    "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id, owner_id) VALUES ('s_1', 'a', 0, 0, 0, 'per_owner')",
  ).run();
  const share = db.prepare(
    "INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES ('s_1', ?, ?, 0)",
  );
  share.run("per_reader", "read");
  share.run("per_writer", "write");
  const audit = new AuditLog(db, systemClock);
  const audiences = new ChatAudiences(db);
  return { db, audit, audiences, guard: new ChatGuard(audiences, audit) };
}

const device = (person_id: string): Caller => ({
  kind: "device",
  device_id: `dev_${person_id}`,
  person_id,
  role: "member",
});
const adminToken = (person_id: string): Caller => ({ kind: "admin", person_id, role: "admin" });

/** The error `require` throws, as the chat routes answer it. */
function refusal(run: () => unknown): { code: string; message: string; kind: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, message: error.message, kind: error.kind };
    throw error;
  }
  throw new Error("not refused");
}

const ACTIONS: ChatAction[] = ["read", "copy", "send", "answer", "flag", "manage"];

describe("the chat guard", () => {
  it("answers what each holder holds, for exactly the actions it allows", () => {
    const { guard } = setUp();
    const allowed = (person: string) =>
      ACTIONS.filter((action) => {
        try {
          return guard.require(device(person), "s_1", action) !== undefined;
        } catch {
          return false;
        }
      });
    expect(allowed("per_owner")).toEqual(ACTIONS);
    expect(allowed("per_writer")).toEqual(["read", "copy", "send", "answer", "flag"]);
    expect(allowed("per_reader")).toEqual(["read", "copy", "flag"]);
    expect(allowed("per_other")).toEqual([]);
    expect(guard.require(device("per_owner"), "s_1", "read")).toBe("owner");
    expect(guard.require(device("per_writer"), "s_1", "read")).toBe("write");
    expect(guard.require(device("per_reader"), "s_1", "read")).toBe("read");
  });

  it("refuses a chat seen but not for this action 403 share_access_denied, naming the share", () => {
    const { guard } = setUp();
    expect(refusal(() => guard.require(device("per_reader"), "s_1", "send"))).toEqual({
      kind: "forbidden",
      code: "share_access_denied",
      message: "this chat is shared with you for read; only its owner may do this",
    });
    expect(refusal(() => guard.require(device("per_writer"), "s_1", "manage")).message).toBe(
      "this chat is shared with you for write; only its owner may do this",
    );
  });

  it("answers a chat not shared with the caller exactly as an unknown one: 404 session_not_found naming it", () => {
    const { guard } = setUp();
    const unknown = { kind: "not_found", code: "session_not_found", message: 'no session "s_unknown"' };
    expect(refusal(() => guard.require(device("per_other"), "s_unknown", "read"))).toEqual(unknown);
    expect(refusal(() => guard.require(adminToken("per_owner"), "s_unknown", "read"))).toEqual(unknown);
    expect(refusal(() => guard.require(device("per_other"), "s_1", "read"))).toEqual({
      ...unknown,
      message: 'no session "s_1"',
    });
  });

  it("lets the admin token reach another person's chat as its owner, audited; its own person's chats are not", () => {
    const { guard, audit } = setUp();
    expect(guard.require(adminToken("per_other"), "s_1", "manage")).toBe("owner");
    expect(
      audit.list().map(({ actor, action, person_id, session_id }) => ({ actor, action, person_id, session_id })),
    ).toEqual([{ actor: "admin_token", action: "admin_token_read", person_id: "per_owner", session_id: "s_1" }]);
    expect(guard.require(adminToken("per_owner"), "s_1", "manage")).toBe("owner");
    expect(guard.require(adminToken("per_reader"), "s_1", "read")).toBe("read");
    expect(audit.list()).toHaveLength(1);
  });

  it("reads a chat's access for the session PATCH: none for an unknown chat", () => {
    const { audiences } = setUp();
    expect(audiences.accessOf("per_owner", "s_1")).toBe("owner");
    expect(audiences.accessOf("per_reader", "s_1")).toBe("read");
    expect(audiences.accessOf("per_owner", "s_unknown")).toBe("none");
  });

  it("drops a removed person's shares and names the chats they were on", () => {
    const { audiences } = setUp();
    expect(audiences.dropSharesOf("per_reader")).toEqual(["s_1"]);
    expect(audiences.accessOf("per_reader", "s_1")).toBe("none");
    expect(audiences.dropSharesOf("per_reader")).toEqual([]);
  });

  it("as SQL (VISIBLE_SESSIONS) selects the chats a person owns or holds a share on, and no other", () => {
    const { db } = setUp();
    db.prepare(
      "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id, owner_id) VALUES ('s_2', 'a', 0, 0, 0, 'per_other')",
    ).run();
    const visible = db.prepare<[{ person: string }], { id: string }>(`${VISIBLE_SESSIONS} ORDER BY 1`);
    const of = (person: string) => visible.all({ person }).map((row) => row.id);
    expect(of("per_owner")).toEqual(["s_1"]);
    expect(of("per_reader")).toEqual(["s_1"]);
    expect(of("per_other")).toEqual(["s_2"]);
    expect(of("per_nobody")).toEqual([]);
  });

  it("transfers a chat to a new owner, whose share on it goes; lists the live chats a person owns", () => {
    const { db, audiences } = setUp();
    expect(audiences.ownedBy("per_owner")).toEqual(["s_1"]);
    audiences.transfer("s_1", "per_writer");
    expect(audiences.of("s_1")).toEqual({
      owner_id: "per_writer",
      shares: [{ person_id: "per_reader", access: "read" }],
    });
    expect(audiences.ownedBy("per_owner")).toEqual([]);
    expect(audiences.ownedBy("per_writer")).toEqual(["s_1"]);
    db.prepare("UPDATE sessions SET deleted_at = 1 WHERE id = 's_1'").run();
    expect(audiences.ownedBy("per_writer")).toEqual([]);
  });

  it("sets a share holder's own flags, leaving a flag not given as it was", () => {
    const { db, audiences } = setUp();
    const flags = () =>
      db
        .prepare("SELECT pinned, archived FROM session_shares WHERE session_id = 's_1' AND person_id = ?")
        .get("per_reader");
    audiences.setFlags("s_1", "per_reader", { pinned: true });
    expect(flags()).toEqual({ pinned: 1, archived: 0 });
    audiences.setFlags("s_1", "per_reader", { archived: true });
    expect(flags()).toEqual({ pinned: 1, archived: 1 });
    audiences.setFlags("s_1", "per_reader", { pinned: false, archived: undefined });
    expect(flags()).toEqual({ pinned: 0, archived: 1 });
  });

  it("as SQL (VISIBLE_EVENT) gives an event to the people its row names, else its chat's, else everyone", () => {
    const { db } = setUp();
    const event = db.prepare(
      "INSERT INTO events (id, type, session_id, created_at, body, audience) VALUES (?, 'x', ?, 0, '{}', ?)",
    );
    event.run(1, "s_1", null); // the chat's people
    event.run(2, null, null); // everyone's
    event.run(3, "s_1", JSON.stringify(["per_other"])); // named: only per_other
    const visible = db.prepare<[{ person: string }], { id: number }>(
      `SELECT id FROM events WHERE ${VISIBLE_EVENT} ORDER BY id`,
    );
    const of = (person: string) => visible.all({ person }).map((row) => row.id);
    expect(of("per_owner")).toEqual([1, 2]);
    expect(of("per_reader")).toEqual([1, 2]);
    expect(of("per_other")).toEqual([2, 3]);
  });
});
