// docs/events.md "`GET /events` rules" 3, as a view over one response window (never a rewrite of the log):
//  - a `partial` is redundant when a later `final` of the same request is in the window (the final carries the
//    whole message);
//  - a `tool_partial` (start/stream) is redundant when the same window later holds that call's `tool_partial`
//    end or a `tool_results` message for it (both carry the whole result);
//  - the surviving partials of one request that follow each other with no other event of that request between
//    them merge into one partial, which keeps the last one's event_id and position.
// Because the window holds only events newer than the caller's cursor, a merged partial holds exactly the text
// that caller has not seen (docs/events.md, invariant E5; test/events/compaction.property.test.ts).
import type { AnyEvent } from "../../client/wire/index.ts";

/**
 * Metadata keys whose partial values are deltas that append; any other metadata key stops a merge. That is the
 * merge boundary at the runner's retry and recovery markers: a poller drops the draft at a recovery marker, so a
 * run merged across one would show the replayed text twice (test/events/compaction.property.test.ts).
 */
const APPENDING_METADATA = new Set(["reasoning", "reasoning_content"]);

type PartialMessage = { role: "assistant"; content: string; metadata?: Record<string, unknown> };

export function compactEvents(events: readonly AnyEvent[]): AnyEvent[] {
  const redundant = findRedundant(events);
  return mergePartials(events.filter((_, index) => !redundant.has(index)));
}

function findRedundant(events: readonly AnyEvent[]): Set<number> {
  const redundant = new Set<number>();
  const finalSeen = new Set<string>();
  const toolDone = new Set<string>();
  // Walk backwards: whatever a later terminal event covers is redundant.
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    const request = event.request_id ?? "";
    switch (event.type) {
      case "final":
        finalSeen.add(request);
        break;
      case "partial":
        if (finalSeen.has(request)) redundant.add(index);
        break;
      case "tool_results":
        for (const id of toolCallIdsOf(event)) toolDone.add(`${request}\u0000${id}`);
        break;
      case "tool_partial": {
        const key = `${request}\u0000${String(event.tool_call_id)}`;
        if (event.phase === "end") toolDone.add(key);
        else if (toolDone.has(key)) redundant.add(index);
        break;
      }
    }
  }
  return redundant;
}

function toolCallIdsOf(event: AnyEvent): string[] {
  const messages = Array.isArray(event.messages)
    ? (event.messages as Array<{ metadata?: { tool_call_id?: unknown } }>)
    : [];
  return messages.map((m) => m?.metadata?.tool_call_id).filter((id): id is string => typeof id === "string");
}

function mergePartials(events: readonly AnyEvent[]): AnyEvent[] {
  // Pass 1: give every mergeable partial a run; a run ends at the next other event of the same request.
  const runOf = new Array<number>(events.length).fill(-1);
  const runs: number[][] = [];
  const openRun = new Map<string, number>();
  events.forEach((event, index) => {
    const request = event.request_id ?? "";
    if (event.type !== "partial" || !isMergeable(event)) {
      openRun.delete(request);
      return;
    }
    let run = openRun.get(request);
    if (run === undefined) {
      run = runs.push([]) - 1;
      openRun.set(request, run);
    }
    runs[run]!.push(index);
    runOf[index] = run;
  });
  // Pass 2: a run is emitted once, merged, at its last member's position, so ids stay ascending.
  const out: AnyEvent[] = [];
  events.forEach((event, index) => {
    const run = runOf[index]!;
    if (run === -1) return void out.push(event);
    const members = runs[run]!;
    if (members[members.length - 1] !== index) return;
    out.push(members.length === 1 ? event : mergeRun(members.map((i) => events[i]!)));
  });
  return out;
}

function isMergeable(event: AnyEvent): boolean {
  const message = event.message as PartialMessage | undefined;
  if (!message || typeof message.content !== "string") return false;
  const metadata = message.metadata ?? {};
  return Object.entries(metadata).every(([key, value]) => APPENDING_METADATA.has(key) && typeof value === "string");
}

function mergeRun(run: AnyEvent[]): AnyEvent {
  const last = run[run.length - 1]!;
  const messages = run.map((event) => event.message as PartialMessage);
  const message: PartialMessage = {
    ...(last.message as PartialMessage),
    content: messages.map((m) => m.content).join(""),
  };
  const metadata: Record<string, string> = {};
  for (const key of APPENDING_METADATA) {
    if (messages.some((m) => m.metadata?.[key] !== undefined))
      metadata[key] = messages.map((m) => m.metadata?.[key] ?? "").join("");
  }
  if (Object.keys(metadata).length > 0) message.metadata = metadata;
  else delete message.metadata;
  return { ...last, message };
}
