// runRequest's last steps (docs/runner.md R13): whatever happens while the ending is published, the
// request-scoped notifications are ended and `request_completed` is attempted, in that order.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { EventStore, PublishInput } from "../../server/events/event-store.ts";
import { RunEvents } from "../../server/runner/events.ts";
import { runRequest, type RunDeps, type RunState } from "../../server/runner/run.ts";

/** A publisher that records every event and throws for the types in `failing`. */
function publisher(failing: string[]) {
  const published: string[] = [];
  const store = {
    publish(event: PublishInput) {
      if (failing.includes(event.type)) throw new Error(`the database refused ${event.type}`);
      published.push(event.type);
    },
  } as unknown as EventStore;
  return { published, out: new RunEvents(store, "s1", "r1") };
}

function setup(options: { failing: string[]; aborted?: boolean; endRequestScope?: () => void }) {
  const calls: string[] = [];
  const { published, out } = publisher(options.failing);
  const controller = new AbortController();
  if (options.aborted) controller.abort(new Error("cancelled by the client"));
  const deps = {
    log: pino({ level: "silent" }),
    // The run fails at once: the agent's tools cannot be loaded.
    tools: () => Promise.reject(new Error("plugins failed to load")),
    endRequestScope: () => {
      calls.push("endRequestScope");
      options.endRequestScope?.();
    },
  } as unknown as RunDeps;
  const run = {
    request_id: "r1",
    session_id: "s1",
    stream: true,
    request_options: undefined,
    signal: controller.signal,
  } as unknown as RunState;
  return { deps, run, out, published, calls };
}

describe("runRequest always ends the request scope and publishes request_completed", () => {
  it("when publishing `error` throws", async () => {
    const { deps, run, out, published, calls } = setup({ failing: ["error"] });
    await runRequest(deps, run, out).catch(() => undefined);
    expect(calls).toEqual(["endRequestScope"]);
    expect(published).toEqual(["request_completed"]);
  });

  it("when publishing `request_cancelled` throws", async () => {
    const { deps, run, out, published, calls } = setup({ failing: ["request_cancelled"], aborted: true });
    await runRequest(deps, run, out).catch(() => undefined);
    expect(calls).toEqual(["endRequestScope"]);
    expect(published).toEqual(["request_completed"]);
  });

  it("when ending the request scope throws, request_completed is still published", async () => {
    const { deps, run, out, published, calls } = setup({
      failing: [],
      endRequestScope: () => {
        throw new Error("notification store unavailable");
      },
    });
    await runRequest(deps, run, out).catch(() => undefined);
    expect(calls).toEqual(["endRequestScope"]);
    expect(published).toEqual(["error", "request_completed"]);
  });

  it("ends the request scope before request_completed", async () => {
    const order: string[] = [];
    const store = { publish: (event: PublishInput) => void order.push(event.type) } as unknown as EventStore;
    const { deps, run } = setup({ failing: [], endRequestScope: () => void order.push("endRequestScope") });
    await runRequest(deps, run, new RunEvents(store, "s1", "r1"));
    expect(order).toEqual(["error", "endRequestScope", "request_completed"]);
  });

  it("a failure to publish the ending is still reported to the caller after request_completed", async () => {
    const { deps, run, out, published } = setup({ failing: ["error"] });
    await expect(runRequest(deps, run, out)).rejects.toThrow("the database refused error");
    expect(published).toEqual(["request_completed"]);
  });
});
