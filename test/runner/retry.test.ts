// Provider retries and stream recoveries as a client sees them in the events (docs/runner.md "Retries and
// recoveries"). The injected TestClock makes retry delays instant and records them.
import { expect, it } from "vitest";
import { chunk, dialectStream } from "../../scripts/scripted-backend/index.ts";
import type { AnyEvent } from "../../client/wire/index.ts";
import { contentOfPartials, createSession, messagesOf, send, useRunner, waitForEvent, waitUntil } from "./helpers.ts";

const runner = useRunner();

const markers = (events: AnyEvent[]) =>
  events
    .filter((e) => e.type === "partial")
    .map((e) => (e.message as { metadata?: Record<string, unknown> }).metadata)
    .filter((m) => m !== undefined && ("retry" in m || "recovery" in m));

/** Content of the partials after the last recovery marker: what a client following the marker rule shows. */
function shownAfterMarkers(events: AnyEvent[]): string {
  let text = "";
  for (const e of events.filter((x) => x.type === "partial")) {
    const message = e.message as { content: string; metadata?: Record<string, unknown> };
    if (message.metadata && "recovery" in message.metadata) text = "";
    else text += message.content;
  }
  return text;
}

it("a 429 is retried inside the run: a retry marker, then the reply; the delay went through the clock", async () => {
  const server = await runner.start({}, { rate_limit_retry_delays_seconds: [3], respect_retry_after_header: false });
  runner.backend.script({ kind: "status", status: 429 }, dialectStream("openai", { content: "after the wait" }));
  const sid = await createSession(server);
  const events = await waitForEvent(server, await send(server, sid, { content: "hi" }));
  expect(markers(events)).toEqual([{ retry: { attempt: 0, reason: "rate_limit", delay_ms: 3000 } }]);
  expect(server.clock.waits).toContain(3000);
  expect(events.some((e) => e.type === "error")).toBe(false);
  expect((await messagesOf(server, sid))[1]!.content).toBe("after the wait");
});

it("a 429 with no retry configured is an error event", async () => {
  const server = await runner.start();
  runner.backend.script({ kind: "status", status: 429 });
  const sid = await createSession(server);
  const events = await waitForEvent(server, await send(server, sid, { content: "hi" }));
  expect(events.find((e) => e.type === "error")!.detail).toMatch(/rate-limited/);
});

it("early_only: a stream that breaks before any text is re-issued; the marker voids the streamed reasoning", async () => {
  const server = await runner.start({}, { stream_recovery: { mode: "early_only" } });
  runner.backend.script(
    { kind: "stream", parts: [{ data: chunk({ reasoning: "first try " }) }], pauseAfter: 1 },
    dialectStream("openai", { reasoning: "second try", content: "All good." }),
  );
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: "hi" });
  await waitUntil(server, rid, (events) => events.some((e) => e.type === "partial"));
  (await runner.backend.nextPause()).destroy();
  const events = await waitForEvent(server, rid);
  expect(markers(events)).toEqual([
    { recovery: expect.objectContaining({ attempt: 1, mode: "early_only", content_emitted: false, restart: true }) },
  ]);
  expect(contentOfPartials(events)).toBe("All good.");
  expect((await messagesOf(server, sid))[1]).toMatchObject({
    content: "All good.",
    metadata: { reasoning: "second try" },
  });
});

it("early_only: a break after visible text is not recovered; the shown text is kept as interrupted", async () => {
  const server = await runner.start({}, { stream_recovery: { mode: "early_only" } });
  runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "Shown" }) }], pauseAfter: 1 });
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: "hi" });
  await waitUntil(server, rid, (events) => contentOfPartials(events) === "Shown");
  (await runner.backend.nextPause()).destroy();
  const events = await waitForEvent(server, rid);
  expect(markers(events)).toEqual([]);
  expect(events.find((e) => e.type === "error")!.detail).toContain("early_only and content was already shown");
  expect((await messagesOf(server, sid))[1]).toMatchObject({ content: "Shown", metadata: { interrupted: true } });
});

it("aggressive: the replayed content shows as new partials after the marker; the stored reply holds it once", async () => {
  const server = await runner.start({}, { stream_recovery: { mode: "aggressive" } });
  runner.backend.script(
    { kind: "stream", parts: [{ data: chunk({ content: "The answer " }) }], pauseAfter: 1 },
    dialectStream("openai", { content: "The answer is 42." }),
  );
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: "hi" });
  await waitUntil(server, rid, (events) => contentOfPartials(events) === "The answer ");
  (await runner.backend.nextPause()).destroy();
  const events = await waitForEvent(server, rid);
  expect(markers(events)).toEqual([
    { recovery: expect.objectContaining({ attempt: 1, mode: "aggressive", content_emitted: true, restart: true }) },
  ]);
  // Raw partials repeat the text (docs/provider.md "Retry rules" 6: the consumer may see duplicates); the marker tells it where to restart.
  expect(contentOfPartials(events)).toBe("The answer The answer is 42.");
  expect(shownAfterMarkers(events)).toBe("The answer is 42.");
  expect((await messagesOf(server, sid))[1]!.content).toBe("The answer is 42.");
});
