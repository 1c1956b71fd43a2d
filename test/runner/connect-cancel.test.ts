// A cancel over HTTP ends a run whose backend connect hangs (a host that drops SYNs) at once, in stream and
// stream:false modes: request_cancelled then request_completed, not after the kernel gives up on the connect.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHangingListener, type HangingListener } from "../provider/hanging-listener.ts";
import { createSession, messagesOf, send, shapeOf, useRunner, waitForEvent } from "./helpers.ts";

let listener: HangingListener;
// Its backend is unused by these runs (the provider points at the listener); it closes each test's server.
const runner = useRunner();
beforeAll(async () => {
  listener = await startHangingListener();
});
afterAll(async () => {
  await listener.close();
});

describe.each([true, false])("cancel while the backend connect hangs (stream: %s)", (stream) => {
  it("ends the run at once with request_cancelled then request_completed", async () => {
    const server = await runner.start({}, { base_url: listener.url, timeout: 30 });
    expect(server.clock.heldCount).toBe(0);
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "hi", stream });
    await server.clock.whenHeld(); // the attempt's `timeout` deadline: the request is connecting
    const res = await server.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel`, payload: {} });
    expect(res.status).toBe(202);
    const events = await waitForEvent(server, rid);
    expect(shapeOf(events).slice(-2)).toEqual(["request_cancelled", "request_completed"]);
    expect((await messagesOf(server, sid)).map((m) => m.role)).toEqual(["user"]);
  });
});
