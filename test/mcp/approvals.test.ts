// The official filesystem server over stdio, driven by the real runner: a read-only call runs at once; a write waits
// for an approval that is answered over HTTP (approve runs it, deny refuses it with the message the model sees);
// answering twice or after the request ended is a 409 with the record; an unknown session a 404; nobody answering
// expires it; several calls of one turn ask separately.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, createSession, send, waitForEvent, type RunnerServer } from "../runner/helpers.ts";
import {
  approvalsWaiting,
  filesystemServer,
  respond,
  scriptCalls,
  sessionRecords,
  startMcpRuntime,
  toolResults,
} from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer;
let dir: string;

beforeEach(async () => {
  backend = await startScriptedBackend();
  const fs = filesystemServer();
  dir = fs.dir;
  writeFileSync(join(dir, "notes.txt"), "milk, eggs");
  server = await startMcpRuntime(backend, { fs: fs.config }, ["mcp__fs__*"]);
});
afterEach(async () => {
  await server?.close();
  await backend.close();
});

/** Sends `message` with a reply that calls write_file(path, content), and resolves once that call awaits approval. */
async function writeAwaitingApproval(path: string, content: string, message: string) {
  scriptCalls(backend, [{ id: "w1", name: "mcp__fs__write_file", args: { path, content } }]);
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: message });
  const [nid] = await approvalsWaiting(server, rid);
  return { sid, rid, nid: nid! };
}

/** The approval's record ended as `ended` says, and answering it afterwards is a 409. */
async function expectEndedUnanswerable(server: RunnerServer, sid: string, nid: string, ended: Record<string, unknown>) {
  expect((await sessionRecords(server, sid))[0]).toMatchObject({ id: nid, ...ended });
  expect((await respond(server, sid, nid, { response: "approve" })).status).toBe(409);
}

describe("filesystem server", () => {
  it("runs a read-only call at once: no interaction, the file's text is the tool result", async () => {
    scriptCalls(backend, [{ id: "c1", name: "mcp__fs__read_text_file", args: { path: join(dir, "notes.txt") } }]);
    const sid = await createSession(server);
    const events = await waitForEvent(server, await send(server, sid, { content: "read my notes" }));
    expect(events.some((e) => e.type === "tool_approval")).toBe(false);
    const [result] = toolResults(events);
    expect(result!.content).toBe("milk, eggs");
    expect(result!.metadata).toMatchObject({
      tool_name: "mcp__fs__read_text_file",
      mcp: { server: "fs", tool: "read_text_file" },
    });
    expect(await sessionRecords(server, sid)).toEqual([]);
    // The model was offered the server's tools under their exposed names.
    const offered = completionBodies(backend)[0]!.tools!.map((t) => t.function.name);
    expect(offered).toContain("mcp__fs__write_file");
    expect(offered.every((n) => n.startsWith("mcp__fs__"))).toBe(true);
  });

  it("a write waits for approval; approved over HTTP it runs, and the record goes responded → resolved", async () => {
    const target = join(dir, "todo.txt");
    const { sid, rid, nid } = await writeAwaitingApproval(target, "buy bread", "write it");
    expect(existsSync(target)).toBe(false);
    const [pending] = await sessionRecords(server, sid);
    expect(pending).toMatchObject({
      id: nid,
      kind: "interaction",
      status: "pending_response",
      key: `approval:${rid}:0`,
      title: "Approve mcp__fs__write_file",
      request_id: rid,
      retention: { policy: "until_request_complete" },
      display: {
        presentation: "modal",
        approval: {
          server: "fs",
          tool: "write_file",
          name: "mcp__fs__write_file",
          arguments: { path: target, content: "buy bread" },
        },
      },
    });
    expect(JSON.parse(pending!.body!)).toEqual({ path: target, content: "buy bread" });

    const answered = await respond(server, sid, nid!, { response: "approve", expected_revision: pending!.revision });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.json).toMatchObject({
      id: nid,
      status: "responded",
      response: { response: "approve", by: "admin" },
    });
    const events = await waitForEvent(server, rid);
    expect(readFileSync(target, "utf8")).toBe("buy bread");
    expect(toolResults(events)[0]!.content).toContain("Successfully wrote");
    const states = events.filter((e) => e.type === "tool_approval").map((e) => e.state);
    expect(states).toEqual(["waiting", "approved"]);
    const [record] = await sessionRecords(server, sid);
    expect(record).toMatchObject({ status: "resolved", resolution: { decision: "approved" } });

    // Answering again, or once the request has ended: 409 with the record itself.
    const again = await respond(server, sid, nid!, { response: "deny" });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ id: nid, status: "resolved" });
  });

  it("a denied write is not run; the model reads the deny message", async () => {
    const target = join(dir, "secret.txt");
    const { sid, rid, nid } = await writeAwaitingApproval(target, "x", "write it");
    const answered = await respond(server, sid, nid!, { response: "deny", message: "not that file, use notes.txt" });
    expect(answered.status).toBe(200);
    const events = await waitForEvent(server, rid);
    expect(existsSync(target)).toBe(false);
    const [result] = toolResults(events);
    expect(result!.content).toContain("not that file, use notes.txt");
    expect(result!.metadata).toMatchObject({ error: true, approval: "denied" });
    const followUp = completionBodies(backend)[1]!.messages.find((m) => m.role === "tool");
    expect(followUp!.content).toContain("not that file, use notes.txt");
    expect((await sessionRecords(server, sid))[0]).toMatchObject({
      status: "resolved",
      response: { response: "deny", message: "not that file, use notes.txt" },
    });
  });

  it("a stale expected_revision, a record of another session, and an unknown session answer 409, 404, 404", async () => {
    scriptCalls(backend, [{ id: "w1", name: "mcp__fs__write_file", args: { path: join(dir, "a.txt"), content: "x" } }]);
    const sid = await createSession(server);
    const other = await createSession(server);
    const rid = await send(server, sid, { content: "write" });
    const [nid] = await approvalsWaiting(server, rid);
    const stale = await respond(server, sid, nid!, { response: "approve", expected_revision: 99 });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ id: nid, status: "pending_response" });
    expect((await respond(server, other, nid!, { response: "approve" })).status).toBe(404);
    const unknown = await respond(server, "no-such-session", nid!, { response: "approve" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("session_not_found");
    expect((await respond(server, sid, nid!, { response: "maybe" })).status).toBe(400);
    expect((await respond(server, sid, nid!, { response: "deny" })).status).toBe(200);
    await waitForEvent(server, rid);
  });

  it("nobody answering within approval_timeout_seconds expires the record and refuses the call", async () => {
    const target = join(dir, "late.txt");
    const { sid, rid, nid } = await writeAwaitingApproval(target, "x", "write");
    expect(server.clock.fireHeld(600_000)).toBe(1);
    const events = await waitForEvent(server, rid);
    expect(existsSync(target)).toBe(false);
    expect(toolResults(events)[0]).toMatchObject({ metadata: { error: true, approval: "expired" } });
    await expectEndedUnanswerable(server, sid, nid!, { status: "expired", expiration: { reason: "approval_timeout" } });
  });

  it("several calls of one turn ask separately, each answered on its own", async () => {
    const a = join(dir, "a.txt");
    const b = join(dir, "b.txt");
    scriptCalls(backend, [
      { id: "w1", name: "mcp__fs__write_file", args: { path: a, content: "A" } },
      { id: "w2", name: "mcp__fs__write_file", args: { path: b, content: "B" } },
    ]);
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "write both" });
    await approvalsWaiting(server, rid, 2);
    const records = await sessionRecords(server, sid);
    expect(records.map((r) => r.key).sort()).toEqual([`approval:${rid}:0`, `approval:${rid}:1`]);
    const byKey = new Map(records.map((r) => [r.key, r.id]));
    expect((await respond(server, sid, byKey.get(`approval:${rid}:1`)!, { response: "approve" })).status).toBe(200);
    expect((await respond(server, sid, byKey.get(`approval:${rid}:0`)!, { response: "deny" })).status).toBe(200);
    const events = await waitForEvent(server, rid);
    expect(existsSync(a)).toBe(false);
    expect(readFileSync(b, "utf8")).toBe("B");
    expect(toolResults(events).map((m) => m.metadata.tool_call_id)).toEqual(["w1", "w2"]);
  });

  it("cancelling the request while it waits cancels the record; the call is not run", async () => {
    const target = join(dir, "never.txt");
    const { sid, rid, nid } = await writeAwaitingApproval(target, "x", "write");
    expect((await server.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel` })).status).toBe(202);
    const events = await waitForEvent(server, rid);
    const types = events.map((e) => e.type);
    expect(types.indexOf("tool_approval", types.indexOf("tool_approval") + 1)).toBeLessThan(
      types.indexOf("request_completed"),
    );
    expect(events.filter((e) => e.type === "tool_approval").map((e) => e.state)).toEqual(["waiting", "cancelled"]);
    expect(existsSync(target)).toBe(false);
    await expectEndedUnanswerable(server, sid, nid!, {
      status: "cancelled",
      resolution: { reason: "request_cancelled" },
    });
  });

  it("a server restart ends the request and its pending approval; answering it afterwards is a 409", async () => {
    scriptCalls(backend, [{ id: "w1", name: "mcp__fs__write_file", args: { path: join(dir, "r.txt"), content: "x" } }]);
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "write" });
    const [nid] = await approvalsWaiting(server, rid);
    await server.close(true);
    server = await startMcpRuntime(backend, { fs: filesystemServer(dir).config }, ["mcp__fs__*"], {}, server.dataDir);
    const [record] = await sessionRecords(server, sid);
    expect(record).toMatchObject({ id: nid });
    expect(record!.status).toBe("cancelled");
    const late = await respond(server, sid, nid!, { response: "approve" });
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ id: nid, status: record!.status });
  });
});
