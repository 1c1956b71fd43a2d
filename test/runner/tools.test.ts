// The tool loop over HTTP: rounds, reasoning write-back, parallel and streaming tools, tool failures as results,
// the iteration bound, and notifications from a tool that never reach the provider.
import { describe, expect, it } from "vitest";
import { completion, dialectStream } from "../../scripts/scripted-backend/index.ts";
import { controls } from "./fixtures/controls.ts";
import {
  completionBodies,
  createSession,
  messagesOf,
  send,
  shapeOf,
  waitForEvent,
  useRunner,
  STREAMED_PHASE,
} from "./helpers.ts";

const runner = useRunner();

async function start(config: Record<string, unknown> = {}) {
  await runner.start({ plugins: ["./test-tools.ts"], ...config });
}

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

describe("tool rounds", () => {
  it("runs two tool rounds, then the final answer; reasoning is written back into the follow-up requests", async () => {
    await start();
    runner.backend.script(
      dialectStream("deepseek", {
        reasoning: "Need weather.",
        tool_calls: [call("c1", "get_weather", { city: "Oslo" })],
      }),
      dialectStream("deepseek", {
        reasoning: "And Rome.",
        content: "Checking Rome too.",
        tool_calls: [call("c2", "get_weather", { city: "Rome" })],
      }),
      dialectStream("deepseek", { content: "Both sunny." }),
    );
    const sid = await createSession(runner.server);
    const rid = await send(runner.server, sid, { content: "weather?" });
    const events = await waitForEvent(runner.server, rid);
    const round = [...STREAMED_PHASE, "tool_calls", "tool_results", "checkpoint"];
    expect(shapeOf(events)).toEqual(["request_started", ...round, ...round, ...STREAMED_PHASE, "request_completed"]);

    const results = events.filter((e) => e.type === "tool_results").map((e) => e.messages);
    expect(results[0]).toEqual([
      {
        role: "tool",
        content: "sunny in Oslo",
        metadata: {
          source: "test",
          tool_call_id: "c1",
          tool_name: "get_weather",
          display: { type: "text", content: "☀ Oslo" },
        },
      },
    ]);
    const toolCalls = events.find((e) => e.type === "tool_calls")!.tool_calls;
    expect(toolCalls).toEqual([
      { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);

    const bodies = completionBodies(runner.backend);
    expect(bodies).toHaveLength(3);
    expect(bodies[0]!.tools!.map((t) => t.function.name).sort()).toEqual([
      "count",
      "fail",
      "get_weather",
      "latch",
      "notify_user",
      "wait_for_cancel",
    ]);
    expect(bodies[1]!.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        reasoning_content: "Need weather.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
    ]);
    expect(bodies[2]!.messages[3]).toMatchObject({
      role: "assistant",
      content: "Checking Rome too.",
      reasoning_content: "And Rome.",
    });
    const messages = await messagesOf(runner.server, sid);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(messages.at(-1)!.content).toBe("Both sunny.");
  });

  it("runs parallel calls concurrently and keeps their results in call order", async () => {
    await start();
    // "a" waits until "b" has started: run one after the other, this request would never finish.
    runner.backend.script(
      dialectStream("openai", {
        tool_calls: [call("ca", "latch", { name: "a", wait_for: "b" }), call("cb", "latch", { name: "b" })],
      }),
      dialectStream("openai", { content: "done" }),
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(runner.server, await send(runner.server, sid, { content: "go" }));
    const results = events.find((e) => e.type === "tool_results")!.messages as Array<{
      content: string;
      metadata: { tool_call_id: string };
    }>;
    expect(results.map((m) => [m.metadata.tool_call_id, m.content])).toEqual([
      ["ca", "latch a done"],
      ["cb", "latch b done"],
    ]);
    expect(
      completionBodies(runner.backend)[1]!
        .messages.slice(2)
        .map((m) => m.tool_call_id),
    ).toEqual(["ca", "cb"]);
  });

  it("streams a tool's parts as tool_partial start, stream..., end {result} before tool_results", async () => {
    await start();
    runner.backend.script(
      dialectStream("openai", { tool_calls: [call("c1", "count", { to: 3 })] }),
      dialectStream("openai", { content: "ok" }),
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(runner.server, await send(runner.server, sid, { content: "count" }));
    const shape = shapeOf(events);
    expect(shape.slice(shape.indexOf("tool_calls"), shape.indexOf("tool_results") + 1)).toEqual([
      "tool_calls",
      "tool_partial:start",
      "tool_partial:stream",
      "tool_partial:stream",
      "tool_partial:end",
      "tool_results",
    ]);
    const partials = events.filter((e) => e.type === "tool_partial");
    expect(partials.map((e) => (e.payload as { part?: unknown }).part)).toEqual(["1 ", "2 ", "3 ", undefined]);
    expect((partials[3]!.payload as { result: unknown }).result).toEqual({
      role: "tool",
      content: "counted",
      metadata: { tool_call_id: "c1", tool_name: "count" },
    });
  });

  it("a non-streaming send runs the same tools without tool_partial events", async () => {
    await start();
    runner.backend.script(
      { kind: "json", body: completion({ tool_calls: [call("c1", "count", { to: 2 })] }) },
      { kind: "json", body: completion({ content: "ok" }) },
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(
      runner.server,
      await send(runner.server, sid, { content: "count", stream: false }),
    );
    expect(events.some((e) => e.type === "tool_partial" || e.type === "partial")).toBe(false);
    expect((events.find((e) => e.type === "tool_results")!.messages as Array<{ content: string }>)[0]!.content).toBe(
      "counted",
    );
  });
});

describe("tool failures become results the model reads", () => {
  it("unknown tool, arguments that are not JSON or fail the schema, and a throwing tool", async () => {
    await start();
    runner.backend.script(
      dialectStream("ollama", {
        tool_calls: [
          call("c1", "no_such_tool", {}),
          { id: "c2", name: "get_weather", arguments: "[1, 2]" },
          call("c3", "get_weather", { city: "" }),
          call("c4", "get_weather", { city: "Oslo", extra: 1 }),
          call("c5", "fail", {}),
          { id: "c6", name: "get_weather", arguments: '{"city": "Os' },
        ],
      }),
      dialectStream("openai", { content: "sorry" }),
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(runner.server, await send(runner.server, sid, { content: "go" }));
    expect(events.some((e) => e.type === "error")).toBe(false);
    const results = events.find((e) => e.type === "tool_results")!.messages as Array<{
      content: string;
      metadata: Record<string, unknown>;
    }>;
    expect(results.map((m) => m.metadata.tool_call_id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"]);
    expect(results.every((m) => m.metadata.error === true)).toBe(true);
    expect(results[0]!.content).toMatch(/unknown tool "no_such_tool"; available tools: .*get_weather/);
    expect(results[1]!.content).toMatch(/invalid arguments for tool "get_weather": \(arguments\): .*expected object/);
    expect(results[2]!.content).toMatch(/invalid arguments for tool "get_weather": city: /);
    expect(results[3]!.content).toMatch(/Unrecognized key: "extra"/);
    expect(results[4]!.content).toBe('Error: tool "fail" failed: the tool broke');
    expect(results[5]!.content).toMatch(
      /invalid arguments for tool "get_weather": the backend sent arguments .* that are not JSON: "\{"city": "Os"; .*max_tokens/,
    );
    expect((await messagesOf(runner.server, sid)).at(-1)!.content).toBe("sorry");
  });

  it("ends a runaway loop at runner.max_tool_iterations with an error, answering the last calls so the session stays valid", async () => {
    await start({ runner: { max_tool_iterations: 1 } });
    runner.backend.script(
      dialectStream("openai", { tool_calls: [call("c1", "get_weather", { city: "A" })] }),
      dialectStream("openai", { tool_calls: [call("c2", "get_weather", { city: "B" })] }),
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(runner.server, await send(runner.server, sid, { content: "loop" }));
    expect(shapeOf(events).slice(-4)).toEqual(["tool_results", "checkpoint", "error", "request_completed"]);
    expect(events.find((e) => e.type === "error")!.detail).toContain("runner.max_tool_iterations");
    const last = (await messagesOf(runner.server, sid)).at(-1)!;
    expect(last).toMatchObject({ role: "tool", metadata: { tool_call_id: "c2", skipped: true } });
    expect(runner.backend.requests).toHaveLength(2);
  });

  it("offers only the tools the agent lists", async () => {
    await start({ agents: { default: { provider_id: "default", tools: ["get_weather"] } } });
    runner.backend.script(
      dialectStream("openai", { tool_calls: [call("c1", "count", { to: 1 })] }),
      dialectStream("openai", { content: "ok" }),
    );
    const sid = await createSession(runner.server);
    const events = await waitForEvent(runner.server, await send(runner.server, sid, { content: "go" }));
    expect(completionBodies(runner.backend)[0]!.tools!.map((t) => t.function.name)).toEqual(["get_weather"]);
    expect((events.find((e) => e.type === "tool_results")!.messages as Array<{ content: string }>)[0]!.content).toMatch(
      /unknown tool "count"/,
    );
  });
});

it("a tool's notification goes to the session's notifications, never into provider history", async () => {
  await start();
  runner.backend.script(
    dialectStream("openai", { tool_calls: [call("c1", "notify_user", { title: "Heads up from the tool" })] }),
    dialectStream("openai", { content: "ok" }),
  );
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "notify me" });
  await waitForEvent(runner.server, rid);
  const tool = (await messagesOf(runner.server, sid))[2]!;
  expect(tool.content).toMatch(/^notified /);
  // The sink swallows invalid input: null, no throw.
  expect(tool.metadata?.bad_notify_result).toBeNull();
  const list = await runner.server.request({ method: "GET", url: `/sessions/${sid}/notifications` });
  expect(JSON.stringify(list.json)).toContain("Notice: Heads up from the tool");
  expect(JSON.stringify(list.json)).toContain(rid);
  expect(JSON.stringify(list.json)).not.toContain("Working on it"); // until_request_complete: expired at the end
  const all = await runner.server.request({
    method: "GET",
    url: `/sessions/${sid}/notifications?include_terminal=true`,
  });
  expect(all.json.find((n: { title: string }) => n.title === "Working on it")).toMatchObject({
    status: "expired",
    request_id: rid,
  });
  const followUp = JSON.stringify(completionBodies(runner.backend)[1]);
  expect(followUp).toContain("Heads up from the tool"); // the model's own arguments, as it sent them
  expect(followUp).not.toContain("Notice:");
});

describe("until_request_complete notifications expire before request_completed, however the request ends", () => {
  /** The session's events in log order, as types (request events by type, notification events by type). */
  function sessionTypes(sid: string): string[] {
    runner.server.runtime.ctx.transactor.commitGroup();
    return runner.server.runtime.ctx.events
      .list({ sinceId: 0, sessionId: sid, limit: 100_000 })
      .events.map((e) => e.type);
  }

  async function scopedNotification(sid: string, title: string) {
    const all = await runner.server.request({
      method: "GET",
      url: `/sessions/${sid}/notifications?include_terminal=true`,
    });
    expect(all.status, all.text).toBe(200);
    return (all.json as Array<{ title: string; status: string; request_id?: string }>).find((n) => n.title === title);
  }

  it("a cancelled run", async () => {
    await start({ plugins: ["./test-tools.ts", "./lifecycle-tools.ts"] });
    runner.backend.script(dialectStream("openai", { tool_calls: [call("c1", "notify_then_wait", {})] }));
    const sid = await createSession(runner.server);
    const rid = await send(runner.server, sid, { content: "go" });
    await controls.latch("notify_then_wait").opened;
    expect(await scopedNotification(sid, "Scoped progress")).toMatchObject({ status: "pending", request_id: rid });
    expect(
      (await runner.server.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel`, payload: {} }))
        .status,
    ).toBe(202);
    await waitForEvent(runner.server, rid);
    expect(await scopedNotification(sid, "Scoped progress")).toMatchObject({ status: "expired", request_id: rid });
    const types = sessionTypes(sid);
    expect(types.indexOf("request_cancelled")).toBeLessThan(types.indexOf("session_notification_expired"));
    expect(types.indexOf("session_notification_expired")).toBeLessThan(types.indexOf("request_completed"));
    expect(types.at(-1)).toBe("request_completed");
  });

  it("a failed run", async () => {
    await start();
    runner.backend.script(dialectStream("openai", { tool_calls: [call("c1", "notify_user", { title: "x" })] }), {
      kind: "status",
      status: 500,
      body: { error: { message: "model exploded" } },
    });
    const sid = await createSession(runner.server);
    const rid = await send(runner.server, sid, { content: "go" });
    const events = await waitForEvent(runner.server, rid);
    expect(shapeOf(events).slice(-2)).toEqual(["error", "request_completed"]);
    expect(await scopedNotification(sid, "Working on it")).toMatchObject({ status: "expired", request_id: rid });
    const types = sessionTypes(sid);
    expect(types.indexOf("error")).toBeLessThan(types.indexOf("session_notification_expired"));
    expect(types.indexOf("session_notification_expired")).toBeLessThan(types.indexOf("request_completed"));
    expect(types.at(-1)).toBe("request_completed");
  });
});
