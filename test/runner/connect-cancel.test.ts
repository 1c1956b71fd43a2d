// A cancel over HTTP ends a run whose backend connect hangs (a host that drops SYNs) at once, in stream and
// stream:false modes: request_cancelled then request_completed, not after the kernel gives up on the connect.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { startHangingListener, type HangingListener } from "../provider/hanging-listener.ts";
import {
  createSession,
  messagesOf,
  send,
  shapeOf,
  startRunnerServer,
  waitForEvent,
  type RunnerServer,
} from "./helpers.ts";

let listener: HangingListener;
let backend: ScriptedBackend; // unused by these runs (the provider points at the listener), required by the helper
let server: RunnerServer | undefined;
beforeAll(async () => {
  listener = await startHangingListener();
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await backend.close();
  await listener.close();
});

describe.each([true, false])("cancel while the backend connect hangs (stream: %s)", (stream) => {
  it("ends the run at once with request_cancelled then request_completed", async () => {
    server = await startRunnerServer(backend, {}, { base_url: listener.url, timeout: 30 });
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
