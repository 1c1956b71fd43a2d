// The approval state machine under generated cases (docs/tools.md "Approvals", docs/notifications.md "States and
// transitions"): a real runner, the official filesystem MCP server over stdio and the scripted backend. The model
// asks for a write that needs approval; then any mix of approvals, denials, repeated answers, a cancel, the
// approval's timeout and a server restart arrives, in any order and at once. Whatever the mix:
// - the record ends in exactly one terminal state, and the tool_approval events say "waiting" then exactly one end;
// - at most one answer is taken (200), every other one is refused 409, and so is any answer after the end;
// - the file is written only when the one taken answer was an approval (a tool runs only after one), and always
//   then unless a restart cut the run first.
import fc from "fast-check";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import {
  approvalsWaiting,
  filesystemServer,
  respond,
  scriptCalls,
  sessionRecords,
  startMcpRuntime,
} from "../mcp/helpers.ts";
import { createSession, send, waitForEvent, type RunnerServer } from "../runner/helpers.ts";
import { itHolds } from "../support/properties.ts";

type Action = "approve" | "deny" | "cancel" | "timeout" | "restart";
const action = fc.constantFrom<Action>("approve", "approve", "deny", "deny", "cancel", "timeout", "restart");
/** A wait no other timer of the server sleeps, so firing it ends the approval's wait and nothing else. */
const TIMEOUT_SECONDS = 777;
const TIMEOUT_MS = TIMEOUT_SECONDS * 1000;
const ENDS = ["resolved", "expired", "cancelled"];

let backend: ScriptedBackend;
let server: RunnerServer;
let fs: ReturnType<typeof filesystemServer>;
let cases = 0;

beforeAll(async () => {
  backend = await startScriptedBackend();
  fs = filesystemServer();
  server = await startMcpRuntime(backend, { fs: fsConfig(fs.dir) }, ["mcp__fs__*"]);
});
afterAll(async () => {
  await server?.close();
  await backend?.close();
});

const fsConfig = (dir: string) => filesystemServer(dir, { approval_timeout_seconds: TIMEOUT_SECONDS }).config;

/**
 * The server stops (its runs are ended as at any shutdown) and starts again on the same data. A run no longer
 * waiting on its approval is let finish first: cut later, its next call to the shared scripted backend could take
 * the next case's script.
 */
async function restart(rid: string, nid: string): Promise<void> {
  if (!server.runtime.ctx.mcp.approvals.isWaiting(nid)) await waitForEvent(server, rid);
  const now = server.clock.now();
  await server.close(true);
  server = await startMcpRuntime(backend, { fs: fsConfig(fs.dir) }, ["mcp__fs__*"], {}, server.dataDir);
  // Time goes on across a restart (the provider's pacing, kept per process, remembers the last start's time).
  server.clock.t = now;
}

/** Sends the actions at once (a restart waits for the others it follows); answers each answer's HTTP status. */
async function actAtOnce(sid: string, rid: string, nid: string, actions: Action[]): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const pending: Array<Promise<unknown>> = [];
  for (const [index, act] of actions.entries()) {
    if (act === "approve" || act === "deny")
      pending.push(respond(server, sid, nid, { response: act }).then((res) => statuses.set(index, res.status)));
    else if (act === "cancel")
      pending.push(server.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel` }));
    else if (act === "timeout") server.clock.fireHeld(TIMEOUT_MS);
    else {
      await Promise.all(pending.splice(0));
      await restart(rid, nid);
    }
  }
  await Promise.all(pending);
  return statuses;
}

describe("an approval under any mix of answers, cancels, timeouts and restarts", () => {
  itHolds(
    "ends in exactly one terminal state, takes at most one answer, and runs the tool only after an approval",
    fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 5 }), async (actions) => {
      const target = join(fs.dir, `case-${++cases}.txt`);
      // A restart leaves the cut request's final reply queued: each case starts from an empty script.
      backend.reset();
      scriptCalls(backend, [{ id: "w1", name: "mcp__fs__write_file", args: { path: target, content: "x" } }]);
      const sid = await createSession(server);
      const rid = await send(server, sid, { content: "write" });
      const [nid] = await approvalsWaiting(server, rid);
      const statuses = await actAtOnce(sid, rid, nid!, actions);
      // An approval not yet answered when nothing ended it is left to its timeout.
      if (!actions.includes("restart")) {
        server.clock.fireHeld(TIMEOUT_MS);
        await waitForEvent(server, rid);
      }
      const [record] = await sessionRecords(server, sid);
      expect(ENDS).toContain(record!.status);
      const taken = [...statuses].filter(([, status]) => status === 200).map(([index]) => actions[index]!);
      expect(taken.length).toBeLessThanOrEqual(1);
      expect([...statuses.values()].every((status) => status === 200 || status === 409)).toBe(true);
      const approved = taken[0] === "approve";
      expect(record!.status === "resolved" ? taken.length : 0).toBe(taken.length);
      // Written only after an approval; and, when no restart cut the run, always after one.
      const restarted = actions.includes("restart");
      const written = existsSync(target);
      expect(written && !approved, `written after ${taken[0] ?? "no answer"}`).toBe(false);
      if (!restarted) expect(written).toBe(approved);
      if (approved) expect(record).toMatchObject({ resolution: { decision: "approved" } });
      // The event log says it as the record does: waiting, then exactly one end.
      const states = server.runtime.ctx.events
        .list({ sinceId: 0, requestId: rid, limit: 10_000 })
        .events.filter((e) => e.type === "tool_approval")
        .map((e) => e.state as string);
      expect(states[0]).toBe("waiting");
      expect(states.slice(1).length).toBeLessThanOrEqual(1);
      expect((await respond(server, sid, nid!, { response: "approve" })).status).toBe(409);
      expect(existsSync(target)).toBe(written);
    }),
    { runs: 8, ms: 120_000 },
    {
      endOnFailure: true,
      // Failed once inside Stryker's instrumented run; every run tries it first.
      examples: [[["cancel", "restart", "restart", "approve", "restart"]]],
    },
  );
});
