// Defects a review found against the real stack (server + bridge on 127.0.0.1), one test each; every one failed
// before its fix. Pure transitions are proved in machine.test.ts instead.
import { afterEach, describe, expect, it } from "vitest";
import { connect, type ChatClient, type ClientProblem, type ConnectOptions } from "../../client/connection/client.ts";
import type { FetchLike } from "../../client/transport/http.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, Stack, until } from "./support/stack.ts";

let stack: Stack | undefined;
let client: ChatClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await stack?.close();
  stack = undefined;
});

/** A fetch that answers `status` instead of the server for the requests `matches` picks while `on` is set. */
function failingFetch(matches: (url: string) => boolean, status = 502) {
  const state = { on: true, failed: 0 };
  const fetch: FetchLike = (input, init) => {
    if (state.on && matches(input)) {
      state.failed++;
      return Promise.resolve(new Response(JSON.stringify({ error: { code: "bad_gateway", message: "injected" } }), { status }));
    }
    return globalThis.fetch(input, init);
  };
  return { state, fetch };
}

/** A paired client whose bridge is down, so it reads over the HTTP long-poll. */
async function pollingClient(options: Partial<ConnectOptions>) {
  stack = await Stack.start();
  const credentials = await stack.pair();
  await stack.stopBridge();
  const problems: ClientProblem[] = [];
  const heard: AnyEvent[] = [];
  client = connect(credentials, { ...FAST_RECONNECT, ...options });
  client.onProblem((problem) => problems.push(problem));
  client.on("*", (event) => heard.push(event));
  return { client, problems, heard };
}

describe("review fixes", () => {
  it("a long-poll that always fails backs off, though the catch-up between polls works", async () => {
    const http = failingFetch((url) => url.includes("wait_ms="));
    await pollingClient({ fetch: http.fetch, retryDelaysMs: [20, 50, 150, 5000] });
    await until(() => http.state.failed >= 1, "the first poll failed");
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const elapsed = Date.now() - started;
    // Backed off 20, 50, 150, then 5000 ms: at most four more polls in 400 ms (a fixed 20 ms would make ~15).
    expect(http.state.failed, `${http.state.failed} failed polls in ${elapsed} ms`).toBeLessThanOrEqual(5);
  });

  it("a pollWaitMs above the server's 30 s maximum is clamped, not refused on every poll", async () => {
    const { client, problems, heard } = await pollingClient({ pollWaitMs: 60_000 });
    await until(() => client.status.get().state === "polling", "polling");
    const sessionId = await stack!.createSession();
    await stack!.append(sessionId, "over the poll");
    await until(() => heard.some((event) => event.type === "message_appended"), "the event");
    expect(client.status.get().state).toBe("polling");
    expect(problems.map((problem) => problem.message)).toEqual([]);
  });
});
