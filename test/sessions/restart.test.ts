import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";

describe("restart durability", () => {
  it("sessions, versions, cursors, events and id order survive a close and reopen", async () => {
    const first = await startTestServer();
    const id = (await first.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
    for (const content of ["one", "two"])
      await first.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content } });
    // A standalone publish rides the group commit; close() must commit it before the file closes.
    first.runtime.ctx.events.publish({ type: "request_started", session_id: id, request_id: "r", stream: true });
    const before = {
      events: (await first.request({ method: "GET", url: "/events?since_id=0" })).json.events,
      snapshot: (await first.request({ method: "GET", url: `/sessions/${id}/messages` })).json,
    };
    const epoch = first.runtime.ctx.events.epoch;
    await first.close(true);

    const second = await startTestServer({}, { dataDir: first.dataDir });
    try {
      expect(second.runtime.ctx.events.epoch).toBe(epoch);
      expect((await second.request({ method: "GET", url: "/events?since_id=0" })).json.events).toEqual(before.events);
      expect((await second.request({ method: "GET", url: `/sessions/${id}/messages` })).json).toEqual(before.snapshot);
      const next = await second.request({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: { role: "user", content: "three" },
      });
      expect(next.json.session.version).toBe(before.snapshot.version + 1);
      const events = (await second.request({ method: "GET", url: `/events?since_id=${before.events.at(-1).event_id}` }))
        .json.events;
      expect(events[0].event_id > before.events.at(-1).event_id).toBe(true);
    } finally {
      await second.close();
    }
  });
});
