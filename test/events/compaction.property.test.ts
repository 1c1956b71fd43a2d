// docs/events.md E5: compaction is a view over one response window. For every cursor and every page size, a
// consumer that replays compacted pages shows, after every page it receives (not only at the end), the same
// content per request as one that replays the raw log up to that page's end, with no text repeated or lost.
// The logs hold the runner's retry and recovery markers (docs/runner.md "Partials and markers"): a poller drops
// the phase's draft at a recovery marker, so a merge across one would show the replayed text twice.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AnyEvent } from "../../client/wire/index.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { compactEvents } from "../../server/events/compaction.ts";

type Script = Array<{
  request: string;
  kind: "text" | "reasoning" | "final" | "tool" | "toolEnd" | "toolResults" | "other" | "retry" | "recovery";
  text: string;
}>;

/** Builds a plausible interleaved log: per request, phases of partials closed by a final, and tool streams. */
function buildLog(script: Script): AnyEvent[] {
  const drafts = new Map<string, string>();
  const tools = new Map<string, number>();
  const events: AnyEvent[] = [];
  const push = (event: Omit<AnyEvent, "event_id">) =>
    events.push({ ...event, event_id: formatEventId(events.length + 1) } as AnyEvent);
  for (const step of script) {
    const base = { session_id: "s", request_id: step.request };
    const callId = `${step.request}-call-${tools.get(step.request) ?? 0}`;
    switch (step.kind) {
      case "text":
      case "reasoning":
        drafts.set(step.request, (drafts.get(step.request) ?? "") + step.text);
        push({
          ...base,
          type: "partial",
          message: {
            role: "assistant",
            content: step.kind === "text" ? step.text : "",
            ...(step.kind === "reasoning" ? { metadata: { reasoning: step.text } } : {}),
          },
        });
        break;
      case "final":
        push({ ...base, type: "final", messages: [{ role: "assistant", content: drafts.get(step.request) ?? "" }] });
        drafts.delete(step.request);
        break;
      case "tool":
        push({ ...base, type: "tool_partial", tool_call_id: callId, phase: "stream", payload: { part: step.text } });
        break;
      case "toolEnd":
        push({
          ...base,
          type: "tool_partial",
          tool_call_id: callId,
          phase: "end",
          payload: { result: { role: "tool", content: "done" } },
        });
        tools.set(step.request, (tools.get(step.request) ?? 0) + 1);
        break;
      case "toolResults":
        push({
          ...base,
          type: "tool_results",
          messages: [{ role: "tool", content: "r", metadata: { tool_call_id: callId } }],
        });
        tools.set(step.request, (tools.get(step.request) ?? 0) + 1);
        break;
      case "other":
        push({ ...base, type: "checkpoint" });
        break;
      case "retry":
        push({
          ...base,
          type: "partial",
          message: {
            role: "assistant",
            content: "",
            metadata: { retry: { attempt: 1, reason: "http_429", delay_ms: 1000 } },
          },
        });
        break;
      case "recovery":
        // The re-issued request replays the reply from its start: what this attempt streamed is void.
        drafts.delete(step.request);
        push({
          ...base,
          type: "partial",
          message: {
            role: "assistant",
            content: "",
            metadata: {
              recovery: {
                attempt: 1,
                mode: "aggressive",
                content_emitted: true,
                reason: "stream_error",
                restart: true,
              },
            },
          },
        });
        break;
    }
  }
  return events;
}

/** What a UI shows per request: committed finals, the live draft (text + reasoning), tool outputs. A recovery marker
 * drops the draft (docs/runner.md: the partials after it replay the reply from its start). */
type RequestView = { finals: string[]; draft: string; reasoning: string; tools: Map<string, string> };

function replay(events: AnyEvent[], state = new Map<string, RequestView>()) {
  for (const event of events) {
    const request = event.request_id!;
    const s: RequestView = state.get(request) ?? {
      finals: [],
      draft: "",
      reasoning: "",
      tools: new Map<string, string>(),
    };
    state.set(request, s);
    if (event.type === "partial") {
      const message = event.message as { content: string; metadata?: { reasoning?: string; recovery?: unknown } };
      if (message.metadata?.recovery !== undefined) {
        s.draft = "";
        s.reasoning = "";
      }
      s.draft += message.content;
      s.reasoning += message.metadata?.reasoning ?? "";
    } else if (event.type === "final") {
      s.finals.push((event.messages as Array<{ content: string }>)[0]!.content);
      s.draft = "";
      s.reasoning = "";
    } else if (event.type === "tool_partial") {
      const id = String(event.tool_call_id);
      const payload = event.payload as { part?: string; result?: unknown };
      s.tools.set(id, event.phase === "end" ? "done" : (s.tools.get(id) ?? "") + payload.part);
    } else if (event.type === "tool_results") {
      for (const m of event.messages as Array<{ metadata: { tool_call_id: string } }>)
        s.tools.set(m.metadata.tool_call_id, "done");
    }
  }
  return state;
}

const step = fc.record({
  request: fc.constantFrom("r1", "r2", "r3"),
  kind: fc.constantFrom(
    "text",
    "text",
    "text",
    "reasoning",
    "final",
    "tool",
    "tool",
    "toolEnd",
    "toolResults",
    "other",
    "retry",
    "recovery",
  ),
  text: fc.string({ minLength: 1, maxLength: 4 }),
});

describe("compaction of a response window", () => {
  it("for every cursor and page size, what a poller shows after each page equals the raw log's view at that point", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 70 }), (script, pageSize) => {
        const log = buildLog(script as Script);
        for (let cursor = 0; cursor <= log.length; cursor++) {
          const state = replay(log.slice(0, cursor));
          for (let start = cursor; start < log.length; start += pageSize) {
            const end = Math.min(start + pageSize, log.length);
            replay(compactEvents(log.slice(start, end)), state);
            expect(state).toEqual(replay(log.slice(0, end)));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never merges across a retry or recovery marker: [text, recovery, text] shows the replayed text once", () => {
    const log = buildLog([
      { request: "a", kind: "text", text: "Hel" },
      { request: "a", kind: "retry", text: "" },
      { request: "a", kind: "text", text: "lo" },
      { request: "a", kind: "recovery", text: "" },
      { request: "a", kind: "text", text: "Hel" },
      { request: "a", kind: "text", text: "lo" },
    ]);
    const compacted = compactEvents(log);
    expect(compacted.map((e) => e.event_id)).toEqual([1, 2, 3, 4, 6].map(formatEventId));
    expect(replay(compacted).get("a")!.draft).toBe("Hello");
  });

  it("keeps ids ascending and never invents or renumbers one", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (script) => {
        const log = buildLog(script as Script);
        const ids: string[] = compactEvents(log).map((e) => e.event_id);
        expect([...ids].sort()).toEqual(ids);
        const original = new Set(log.map((e) => e.event_id));
        for (const id of ids) expect(original.has(id)).toBe(true);
      }),
    );
  });

  it("drops partials a later final covers and merges a run of partials into the last one's id", () => {
    const log = buildLog([
      { request: "a", kind: "text", text: "He" },
      { request: "a", kind: "text", text: "llo" },
      { request: "b", kind: "text", text: "x" },
      { request: "a", kind: "text", text: "!" },
      { request: "b", kind: "final", text: "" },
    ]);
    const compacted = compactEvents(log);
    expect(compacted.map((e) => [e.event_id, e.type, e.request_id])).toEqual([
      [formatEventId(4), "partial", "a"],
      [formatEventId(5), "final", "b"],
    ]);
    expect((compacted[0]!.message as { content: string }).content).toBe("Hello!");
  });
});
