// Servers and the tool loop: GET /mcp (status, tools, tools left out and why, last error), GET /agents (tools and
// their source), which agent reaches which tool, results (text, images, structured content, resource links,
// isError, the max_result_bytes cut), list_changed, cancellation and timeout sending MCP's cancellation, a server
// killed mid-call and restarted, and no child left after stop.
import { holds } from "../support/holds.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { descendantsOf } from "../../server/mcp/process-tree.ts";
import {
  completionBodies,
  createSession,
  send,
  waitForEvent,
  waitUntil,
  type RunnerServer,
} from "../runner/helpers.ts";
import { tempDir } from "../support/server.ts";
import {
  alive,
  everythingServer,
  filesystemServer,
  fixtureServer,
  scriptCalls,
  startMcpRuntime,
  toolResults,
} from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer | undefined;
let journal: string;

const journalEntries = () =>
  readFileSync(journal, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeEach(async () => {
  backend = await startScriptedBackend();
  journal = join(tempDir("mcp-journal-"), "journal.jsonl");
  writeFileSync(journal, "");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await backend.close();
});

async function start(tools = ["mcp__s__*"], extra: Record<string, unknown> = {}) {
  server = await startMcpRuntime(backend, { s: fixtureServer("scripted-server.ts", [journal]), ...extra }, tools);
  return server;
}

async function untilStatus(name: string, status: string) {
  const entry = () => server!.runtime.ctx.mcp.report().find((s) => s.name === name)!;
  await holds(() => entry().status === status, `${name} is ${status}`, 30_000);
  return entry();
}

describe("GET /mcp and GET /agents", () => {
  it("reports each server's status, tools, tools left out and why, and the last error of one that cannot start", async () => {
    server = await startMcpRuntime(
      backend,
      {
        s: { ...fixtureServer("scripted-server.ts", [journal]), require_approval: { echo: "never" } },
        broken: { command: "/nonexistent/mcp-server" },
      },
      ["mcp__s__echo"],
    );
    const res = await server!.request({ method: "GET", url: "/mcp" });
    expect(res.status).toBe(200);
    const byName: Record<string, any> = Object.fromEntries(
      (res.json.servers as Array<{ name: string }>).map((s) => [s.name, s]),
    );
    expect(byName.s).toMatchObject({ transport: "stdio", status: "ready", tool_count: 7, last_error: null });
    expect(byName.s.tools.find((t: { name: string }) => t.name === "mcp__s__echo")).toEqual({
      name: "mcp__s__echo",
      tool: "echo",
      approval_mode: "never",
      requires_approval: false,
    });
    // MCP allows `__proto__`; it is offered, and its approval mode is the server's default, not Object.prototype.
    expect(byName.s.tools.find((t: { tool: string }) => t.tool === "__proto__")).toEqual({
      name: "mcp__s____proto__",
      tool: "__proto__",
      approval_mode: "auto",
      requires_approval: true,
    });
    const reasons = Object.fromEntries(
      byName.s.left_out.map((l: { tool: string; reason: string }) => [l.tool, l.reason]),
    );
    expect(reasons["bad.name"]).toMatch(/characters other than letters/);
    expect(reasons["x".repeat(60)]).toMatch(/longer than 64/);
    expect(reasons.twice).toMatch(/listed more than once/);
    expect(reasons[""]).toMatch(/breaks MCP's rule for tool names/);
    expect(reasons["has space"]).toMatch(/breaks MCP's rule for tool names/);
    expect(byName.broken).toMatchObject({ status: "restarting", tool_count: 0 });
    expect(byName.broken.last_error).toMatch(/could not start: .*ENOENT/);

    const agents = await server!.request({ method: "GET", url: "/agents" });
    expect(agents.json.agents[0].tools).toEqual([{ name: "mcp__s__echo", source: "mcp", server: "s" }]);

    // The broken server does not stop the others: a call on s still runs.
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__echo", args: { text: "hi" } }]);
    const sid = await createSession(server!);
    expect(toolResults(await waitForEvent(server!, await send(server!, sid, { content: "x" })))[0]!.content).toBe("hi");
  });
});

describe("which agent gets which tool", () => {
  it("an agent reaches only the MCP tools its tools list names; one without a list gets none", async () => {
    await start(["mcp__s__echo", "mcp__s__fail"]);
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__rich", args: {} }]);
    const sid = await createSession(server!);
    const events = await waitForEvent(server!, await send(server!, sid, { content: "x" }));
    expect(
      completionBodies(backend)[0]!
        .tools!.map((t) => t.function.name)
        .sort(),
    ).toEqual(["mcp__s__echo", "mcp__s__fail"]);
    expect(toolResults(events)[0]!.content).toMatch(/unknown tool "mcp__s__rich"/);
    await server!.close();
    server = await startMcpRuntime(backend, { s: fixtureServer("scripted-server.ts", [journal]) }, [], {
      agents: { default: { provider_id: "default" } },
    });
    backend.script(dialectStream("openai", { content: "ok" }));
    const other = await createSession(server);
    await waitForEvent(server, await send(server, other, { content: "x" }));
    expect(completionBodies(backend).at(-1)!.tools).toBeUndefined();
  });
});

describe("results", () => {
  it("keeps text as data, images as image parts for the backend, structured content as JSON, resource links by URI", async () => {
    await start();
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__rich", args: {} }]);
    const sid = await createSession(server!);
    const [result] = toolResults(await waitForEvent(server!, await send(server!, sid, { content: "x" })));
    expect(result!.content).toBe(
      '<b>not markup</b>\n[image 1: image/png]\n[resource link: file:///tmp/report.pdf (report.pdf)]\n{"temperature":21,"unit":"C"}',
    );
    expect(result!.metadata.images).toEqual([
      { media_type: "image/png", data_url: `data:image/png;base64,${Buffer.from("png-bytes").toString("base64")}` },
    ]);
    // The follow-up request carries the image as an image part, in a user message after the tool messages.
    const messages = completionBodies(backend)[1]!.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(messages[3]!.content).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${Buffer.from("png-bytes").toString("base64")}` },
    });
  });

  it("isError is an error result the model reads; a result over max_result_bytes is cut with a note", async () => {
    await start(["mcp__s__*"]);
    scriptCalls(backend, [
      { id: "c1", name: "mcp__s__fail", args: {} },
      { id: "c2", name: "mcp__s__big", args: { n: 300_000 } },
    ]);
    const sid = await createSession(server!);
    const [failed, big] = toolResults(await waitForEvent(server!, await send(server!, sid, { content: "x" })));
    expect(failed).toMatchObject({ content: "The tool reported an error: disk is full", metadata: { error: true } });
    expect(Buffer.byteLength(big!.content)).toBeLessThan(100 * 1024 + 200);
    expect(big!.content).toMatch(
      /\[cut: the result was 300000 bytes; the first 102400 are shown \(max_result_bytes\)\]$/,
    );
    expect(big!.metadata.truncated).toBe(true);
  });
});

describe("progress", () => {
  it("the server's progress reaches the app as tool_partial parts", async () => {
    server = await startMcpRuntime(backend, { every: everythingServer() }, ["mcp__every__*"]);
    scriptCalls(backend, [
      { id: "c1", name: "mcp__every__trigger-long-running-operation", args: { duration: 0.6, steps: 3 } },
    ]);
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "x" });
    const events = await waitForEvent(server, rid);
    const parts = events
      .filter((e) => e.type === "tool_partial" && e.phase !== "end")
      .map((e) => (e.payload as { part: unknown }).part);
    // The last step's progress may come with the answer, and the SDK drops progress once its call is answered.
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts).toEqual([1, 2, 3].slice(0, parts.length).map((progress) => ({ progress: { progress, total: 3 } })));
    expect(toolResults(events)[0]!.content).toMatch(/Long running operation completed/);
  });
});

describe("list_changed", () => {
  it("re-lists the server's tools when it says its list changed", async () => {
    await start();
    expect(server!.runtime.ctx.mcp.report()[0]!.tool_count).toBe(7);
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__add_tool", args: {} }]);
    const sid = await createSession(server!);
    await waitForEvent(server!, await send(server!, sid, { content: "x" }));
    await holds(() => server!.runtime.ctx.mcp.report()[0]!.tool_count === 8, "the added tool listed", 30_000);
    expect(server!.runtime.ctx.mcp.report()[0]!.tools.map((t) => t.name)).toContain("mcp__s__added");
  });
});

describe("cancellation, timeout, a server killed mid-call", () => {
  it("cancelling the request during a call sends MCP's cancellation and ends the call", async () => {
    await start();
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__slow", args: {} }]);
    const sid = await createSession(server!);
    const rid = await send(server!, sid, { content: "x" });
    await waitUntil(server!, rid, (events) => events.some((e) => e.type === "tool_calls"));
    await until(() => journalEntries().some((e) => e.call === "slow"));
    const cancel = await server!.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel` });
    expect(cancel.status).toBe(202);
    const events = await waitForEvent(server!, rid);
    expect(events.map((e) => e.type)).toContain("request_cancelled");
    expect(toolResults(events)[0]!.metadata.interrupted).toBe(true);
    const started = journalEntries().find((e) => e.call === "slow")!;
    await until(() => journalEntries().some((e) => e.cancelled === started.id));
  });

  it("a call with no answer within timeout_seconds is cancelled on the server and answered as an error", async () => {
    await start(["mcp__s__*"], {});
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__slow", args: {} }]);
    const sid = await createSession(server!);
    const rid = await send(server!, sid, { content: "x" });
    await until(() => journalEntries().some((e) => e.call === "slow"));
    expect(server!.clock.fireHeld(60_000)).toBe(1);
    const [result] = toolResults(await waitForEvent(server!, rid));
    expect(result).toMatchObject({ metadata: { error: true } });
    expect(result!.content).toMatch(/no answer within 60 s \(timeout_seconds\)/);
    const started = journalEntries().find((e) => e.call === "slow")!;
    await until(() => journalEntries().some((e) => e.cancelled === started.id));
  });

  it("a server killed mid-call answers that call with an error, is restarted, and serves the next request", async () => {
    await start();
    const first = server!.runtime.ctx.mcp.connection("s")!.pid!;
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__slow", args: {} }]);
    const sid = await createSession(server!);
    const rid = await send(server!, sid, { content: "x" });
    await until(() => journalEntries().some((e) => e.call === "slow"));
    // The tsx loader runs the script as node's child: kill the whole tree as a crash would.
    for (const pid of [first, ...descendantsOf(first)]) process.kill(pid, "SIGKILL");
    const [result] = toolResults(await waitForEvent(server!, rid));
    expect(result!.metadata.error).toBe(true);
    expect(result!.content).toMatch(/MCP server "s": .*Connection closed/);
    const restarted = await untilStatus("s", "ready");
    expect(restarted.restarts).toBe(1);
    expect(server!.runtime.ctx.mcp.connection("s")!.pid).not.toBe(first);
    scriptCalls(backend, [{ id: "c2", name: "mcp__s__echo", args: { text: "back" } }]);
    expect(toolResults(await waitForEvent(server!, await send(server!, sid, { content: "again" })))[0]!.content).toBe(
      "back",
    );
  });

  it("a request whose tool's server is down gets a tool error result saying so, with its last error", async () => {
    const flag = join(tempDir("mcp-flag-"), "fail");
    const s = fixtureServer("scripted-server.ts", [journal], { env: { MCP_FAIL_FLAG: flag } });
    server = await startMcpRuntime(backend, { s }, ["mcp__s__*"]);
    // From now on every start fails; the kill below makes it restart.
    writeFileSync(flag, "");
    const pid = server.runtime.ctx.mcp.connection("s")!.pid!;
    for (const p of [pid, ...descendantsOf(pid)]) process.kill(p, "SIGKILL");
    // Five quick restarts fail (the test clock lets delays under 20 s pass at once); the sixth waits 32 s.
    await holds(() => server!.runtime.ctx.mcp.report()[0]!.restarts >= 6, "six restarts", 30_000);
    scriptCalls(backend, [{ id: "c1", name: "mcp__s__echo", args: { text: "hi" } }]);
    const sid = await createSession(server);
    const [result] = toolResults(await waitForEvent(server, await send(server, sid, { content: "x" })));
    expect(result!.metadata.error).toBe(true);
    expect(result!.content).toMatch(
      /MCP server "s" is not available \(restarting\); last error: could not start: .*cannot start: the flag file is there/,
    );
    // Six child starts (node with tsx, ~1 s each on a loaded machine) come before the request: a wider budget.
  }, 60_000);
});

describe("processes", () => {
  it("children run in the server's process group, and none is left after stop", async () => {
    const fs = filesystemServer();
    server = await startMcpRuntime(
      backend,
      { fs: fs.config, every: everythingServer(), s: fixtureServer("scripted-server.ts", [journal]) },
      ["mcp__fs__*"],
    );
    const mcp = server.runtime.ctx.mcp;
    const roots = ["fs", "every", "s"].map((name) => mcp.connection(name)!.pid!);
    const pids = roots.flatMap((pid) => [pid, ...descendantsOf(pid)]);
    expect(pids.length).toBeGreaterThanOrEqual(3);
    const ownGroup = processGroup(process.pid);
    for (const pid of pids) expect(processGroup(pid)).toBe(ownGroup);
    await server.close();
    server = undefined;
    expect(pids.filter(alive)).toEqual([]);
  });
});

function processGroup(pid: number): number {
  // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so read after the last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

function until(check: () => boolean): Promise<void> {
  return holds(check, "the condition held", 30_000);
}
