// A server process killed with SIGKILL in the middle of an import or a delete (docs/testing.md "Faults"), started
// again on the same DATA_DIR: no chat is half imported and none half deleted. Each chat is there whole (all its
// messages, as exported) or not at all, and sending the same import again brings exactly the missing ones. Where the
// kill lands is up to the machine; what is checked holds wherever it lands.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, killAll, serverEnv, run, type Run } from "../config/support/processes.ts";
import { tempDir } from "../support/server.ts";
import { chatRecord } from "../export/support.ts";

const TOKEN = "sigkill-test-admin-token";
const CHATS = 200;
const MESSAGES = 40;
const dirs: string[] = [];
const runs: Run[] = [];
afterEach(async () => {
  await killAll(runs);
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const record = (n: number) =>
  chatRecord(
    n,
    {},
    Array.from({ length: MESSAGES }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `chat ${n} message ${i}`,
    })),
  );
const FILE = JSON.stringify(Array.from({ length: CHATS }, (_, n) => record(n)));

async function call(base: string, method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** A server process on a fresh DATA_DIR (or `dir` again), listening. */
async function startServer(dir = tempDir()): Promise<{ dir: string; base: string; server: Run }> {
  if (!dirs.includes(dir)) dirs.push(dir);
  const port = await freePort();
  const server = run(["server/main.ts"], serverEnv(dir, port, TOKEN));
  runs.push(server);
  writeFileSync(join(dir, "config.json"), "{}");
  await server.waitFor(/server listening on/);
  return { dir, base: `http://127.0.0.1:${port}`, server };
}

async function kill(server: Run): Promise<void> {
  server.child.kill("SIGKILL");
  await server.exit;
}

/** Every chat the server holds, as exported: source id → its messages' text. */
async function chats(base: string): Promise<Map<string, string[]>> {
  const exported = (await call(base, "GET", "/export")).json as Array<{
    source_id: string;
    session: { messages: Array<{ content: string }> };
  }>;
  return new Map(exported.map((r) => [r.source_id, r.session.messages.map((m) => m.content)]));
}

const whole = (n: number) => record(n).session.messages.map((m) => m.content);

describe("a server killed with SIGKILL", { timeout: 120_000 }, () => {
  it("mid-import or mid-delete leaves every chat whole or absent; sent again, each finishes", async () => {
    const first = await startServer();
    const importing = call(first.base, "POST", "/import", FILE).catch(() => undefined);
    // Killed once the import has stored something (or, on a fast machine, finished): wherever it lands.
    for (;;) {
      const listed = await call(first.base, "GET", "/sessions?archived=include");
      if (listed.json.sessions.length > 0) break;
    }
    await kill(first.server);
    await importing;

    const second = await startServer(first.dir);
    const kept = await chats(second.base);
    for (const [sourceId, messages] of kept) expect(messages).toEqual(whole(Number(sourceId.slice(5))));
    const again = await call(second.base, "POST", "/import", FILE);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ imported: CHATS - kept.size, skipped: kept.size });
    expect((await chats(second.base)).size).toBe(CHATS);

    // Now a delete, the process killed as soon as it is sent.
    const { sessions } = (await call(second.base, "GET", "/sessions")).json as {
      sessions: Array<{ id: string }>;
    };
    const id = sessions[0]!.id;
    const before = (await call(second.base, "GET", `/sessions/${id}`)).json.session.messages;
    const deleting = call(second.base, "DELETE", `/sessions/${id}`).catch(() => undefined);
    await kill(second.server);
    await deleting;

    const third = await startServer(first.dir);
    const after = await call(third.base, "GET", `/sessions/${id}`);
    expect([200, 404]).toContain(after.status);
    if (after.status === 200) {
      expect(after.json.session.messages).toEqual(before);
      expect((await call(third.base, "DELETE", `/sessions/${id}`)).status).toBe(204);
    }
    expect((await call(third.base, "GET", `/sessions/${id}`)).status).toBe(404);
    expect((await chats(third.base)).size).toBe(CHATS - 1);
  });

  it("inside one long chat, while its messages are being written, leaves no trace of it; sent again, it comes whole", async () => {
    const long = { ...record(0), source_id: "test:long" };
    long.session = {
      ...long.session,
      messages: Array.from({ length: 30_000 }, (_, i) => ({ role: "user", content: `m${i}` })),
    };
    const file = JSON.stringify([long]);
    const first = await startServer();
    const importing = call(first.base, "POST", "/import", file).catch(() => undefined);
    // Another process reading the same file (WAL): rows of the chat's messages are there, the chat is not yet.
    const db = new Database(join(first.dir, "data", "server.sqlite"), { readonly: true, fileMustExist: true });
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    try {
      while (count("SELECT count(*) AS n FROM session_messages") === 0) await new Promise((r) => setImmediate(r));
      expect(count("SELECT count(*) AS n FROM sessions")).toBe(0);
    } finally {
      db.close();
    }
    await kill(first.server);
    await importing;

    const second = await startServer(first.dir);
    expect((await chats(second.base)).size).toBe(0);
    const reopened = new Database(join(first.dir, "data", "server.sqlite"), { readonly: true });
    try {
      // Nothing of the cut-off chat is left on disk: no message row, no body.
      expect(reopened.prepare("SELECT count(*) AS n FROM session_messages").get()).toEqual({ n: 0 });
      expect(reopened.prepare("SELECT count(*) AS n FROM message_bodies").get()).toEqual({ n: 0 });
    } finally {
      reopened.close();
    }
    const again = await call(second.base, "POST", "/import", file);
    expect(again.json).toMatchObject({ imported: 1, skipped: 0 });
    expect((await chats(second.base)).get("test:long")).toEqual(long.session.messages.map((m) => m.content));
  });
});
