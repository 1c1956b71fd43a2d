// docs/events.md "`GET /events` rules" 4 under a running request: a reader that loads messages (with cursor_event_id) at any
// moment and then polls from that cursor applies every effect exactly once: snapshot + events = final state.
import { afterEach, beforeEach, expect, it } from "vitest";
import type { AnyEvent, Message } from "../../client/wire/index.ts";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, messagesOf, send, startRunnerServer, waitForEvent, type RunnerServer } from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startRunnerServer(backend, { plugins: ["./test-tools.ts"] });
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

interface Snapshot {
  sessionId: string;
  messages: Message[];
  cursor: string;
}

/** Applies the message effects of events to a snapshot's messages. */
function apply(messages: Message[], events: AnyEvent[]): Message[] {
  const out = [...messages];
  for (const e of events) {
    if (e.type === "message_appended") out.push(e.message as Message);
    if (e.type === "final" || e.type === "tool_results") out.push(...(e.messages as Message[]));
  }
  return out;
}

async function pollAll(sessionId: string, since: string): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  for (let cursor = since; ;) {
    const res = await server.request({
      method: "GET",
      url: `/events?session_id=${sessionId}&since_id=${cursor}&limit=7`,
    });
    expect(res.status).toBe(200);
    events.push(...(res.json.events as AnyEvent[]));
    if (!res.json.has_more) return events;
    cursor = res.json.next_since_id as string;
  }
}

it("load + poll from cursor_event_id sees every effect once, at any moment of streaming and tool rounds", async () => {
  const sessions = await Promise.all([0, 1, 2].map(() => createSession(server)));
  for (let i = 0; i < sessions.length; i++) {
    backend.script(
      dialectStream("openai", {
        content: "Let me count for you. ".repeat(3),
        tool_calls: [{ id: `c${i}`, name: "count", arguments: '{"to":4}' }],
      }),
      dialectStream("openai", { content: "Counted to four, as promised. ".repeat(4) }),
    );
  }
  const requests = await Promise.all(sessions.map((sid, i) => send(server, sid, { content: `count ${i}` })));
  const done = Promise.all(requests.map((rid) => waitForEvent(server, rid)));
  let finished = false;
  void done.then(() => (finished = true));

  // The reader: load every session's messages, wait for the next commit, again, until all requests ended.
  const snapshots: Snapshot[] = [];
  const store = server.runtime.ctx.events;
  while (!finished) {
    const seen = store.latestId;
    for (const sessionId of sessions) {
      const res = await server.request({ method: "GET", url: `/sessions/${sessionId}/messages` });
      snapshots.push({
        sessionId,
        messages: res.json.messages as Message[],
        cursor: res.json.cursor_event_id as string,
      });
    }
    await store.waitBeyond(seen, 60_000);
  }
  await done;
  // Snapshots were taken in every state: before, during and after the tool round.
  const sizes = new Set(snapshots.map((s) => s.messages.length));
  expect([...sizes].sort()).toEqual(expect.arrayContaining([1, 2, 3, 4]));

  const finals = new Map<string, Message[]>();
  for (const sid of sessions) finals.set(sid, await messagesOf(server, sid));
  for (const snapshot of snapshots) {
    const events = await pollAll(snapshot.sessionId, snapshot.cursor);
    expect(apply(snapshot.messages, events)).toEqual(finals.get(snapshot.sessionId));
  }
});
