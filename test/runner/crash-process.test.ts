// Issue 20 item 9 with a real server process (docs/runner.md "Interrupted replies"): a server killed with SIGKILL in
// the middle of a streamed reply, started again on the same DATA_DIR, keeps the text it had streamed as the
// assistant message marked `interrupted: "crash"`, and ends the request with `error` {detail, reason: "crash"} then
// `request_completed`. The backend is the scripted one over HTTP, paused mid-stream.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunk, startScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { SERVER_STOPPED_DETAIL } from "../../server/runner/recovery.ts";
import { tempDir } from "../support/server.ts";
import { freePort, killAll, serverEnv, run, type Run } from "../config/support/processes.ts";
import { useClosing } from "../support/use-closing.ts";

const TOKEN = "crash-test-admin-token";
const dirs: string[] = [];
const runs: Run[] = [];
const closing = useClosing();
afterEach(async () => {
  await killAll(runs);
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

type Event = {
  type: string;
  request_id?: string;
  detail?: string;
  reason?: string;
  message?: { content: string };
  messages?: Array<{ role: string; content: string; metadata?: Record<string, unknown> }>;
};

async function call(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return response.json();
}

/** The request's events once `done` holds for them, read with long-polls (each answers as soon as an event commits). */
async function eventsUntil(base: string, requestId: string, done: (events: Event[]) => boolean): Promise<Event[]> {
  for (;;) {
    const { events } = (await call(base, "GET", `/events?request_id=${requestId}`)) as { events: Event[] };
    if (done(events)) return events;
    const last = (events.at(-1) as { event_id?: string } | undefined)?.event_id ?? "0";
    await call(base, "GET", `/events?request_id=${requestId}&since_id=${last}&wait_ms=2000`);
  }
}

describe("a server killed mid-stream", { timeout: 120_000 }, () => {
  it("keeps the streamed text after its restart, marked interrupted by the crash, and ends the request", async () => {
    const backend = closing.own(await startScriptedBackend());
    backend.script({
      kind: "stream",
      parts: [{ data: chunk({ content: "Once upon" }) }, { data: chunk({ content: " a time" }) }],
      pauseAfter: 1,
    });
    const dir = tempDir();
    dirs.push(dir);
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ providers: { p: { provider: "reference_compatible", model: "m", base_url: backend.url } } }),
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = serverEnv(dir, port, TOKEN);

    const first = run(["server/main.ts"], env);
    runs.push(first);
    await first.waitFor(/server listening on/);
    const { session } = await call(base, "POST", "/sessions", {});
    const { request_id: requestId } = await call(base, "POST", `/sessions/${session.id}/send`, { content: "a story" });
    await backend.nextPause();
    await eventsUntil(base, requestId, (events) =>
      events.some((e) => e.type === "partial" && e.message?.content.includes("Once upon")),
    );
    first.child.kill("SIGKILL");
    await first.exit;

    const second = run(["server/main.ts"], env);
    runs.push(second);
    await second.waitFor(/server listening on/);
    const events = await eventsUntil(base, requestId, (all) => all.some((e) => e.type === "request_completed"));
    const ends = events.filter((e) => ["final", "error", "request_cancelled", "request_completed"].includes(e.type));
    expect(ends.map((e) => e.type)).toEqual(["final", "error", "request_completed"]);
    expect(ends[0]!.messages).toEqual([
      {
        role: "assistant",
        content: "Once upon",
        metadata: { interrupted: "crash", interrupted_reason: "server_stopped" },
      },
    ]);
    expect(ends[1]).toMatchObject({ detail: SERVER_STOPPED_DETAIL, reason: "crash" });
    const { session: after } = await call(base, "GET", `/sessions/${session.id}`);
    expect(after.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "a story"],
      ["assistant", "Once upon"],
    ]);
    second.child.kill("SIGTERM");
    expect((await second.exit).code).toBe(0);
  });
});
