// A server process killed with SIGKILL in the middle of an import or a delete (docs/testing.md "Faults"), started
// again on the same DATA_DIR: no chat is half imported and none half deleted. Each chat is there whole (all its
// messages, as exported) or not at all, and sending the same import again brings exactly the missing ones. Where the
// kill lands is up to the machine; what is checked holds wherever it lands.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, killAll, serverEnv, run, type Run } from "../config/support/processes.ts";
import { tempDir } from "../support/server.ts";
import { chatRecord } from "../export/support.ts";

const TOKEN = "sigkill-test-admin-token";
const CHATS = 200;
const MESSAGES = 40;
const dirs: string[] = [];
const runs: Run[] = [];
afterEach(() => {
  killAll(runs);
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
});
