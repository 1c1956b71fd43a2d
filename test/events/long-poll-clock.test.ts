// GET /events wait_ms is timed on the server's injected clock (server/clock.ts), never on a timer of its own:
// the test clock holds the 30-second sleep until the test fires it, so nothing here waits in real time.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { TestClock } from "../provider/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let clock: TestClock;
beforeEach(async () => {
  clock = new TestClock();
  server = await startTestServer({}, { clock });
});
afterEach(() => server.close());

const newSession = async () =>
  (await server.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;

it("answers an empty page when wait_ms runs out on the injected clock", async () => {
  const since = server.runtime.ctx.events.latestId;
  const poll = server.request({ method: "GET", url: `/events?since_id=${since}&wait_ms=30000` });
  await vi.waitFor(() => expect(clock.heldCount).toBe(1));
  expect(clock.fireHeld(30_000)).toBe(1);
  const res = await poll;
  expect(res.status).toBe(200);
  expect(res.json.events).toEqual([]);
});

it("a commit ends the wait before the deadline, and the clock's sleep ends with it", async () => {
  const id = await newSession();
  const since = server.runtime.ctx.events.latestId;
  const poll = server.request({ method: "GET", url: `/events?since_id=${since}&session_id=${id}&wait_ms=30000` });
  await vi.waitFor(() => expect(clock.heldCount).toBe(1));
  server.runtime.ctx.events.publish({ type: "request_started", session_id: id, request_id: "r1", stream: true });
  const res = await poll;
  expect(res.json.events.map((e: { type: string }) => e.type)).toEqual(["request_started"]);
  expect(clock.heldCount).toBe(0);
});
