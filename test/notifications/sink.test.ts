// The tool-facing sink (ctx.notify): bound to a session and request, resolves to the record or null, never throws.
import { describe, expect, it } from "vitest";
import { createNotificationSink } from "../../server/notifications/api.ts";
import { basic, useHarness } from "./helpers.ts";

const h = useHarness();

describe("notification sink", () => {
  it("publishes a session notification tagged with the bound request", async () => {
    const sessionId = await h.newSession();
    const notify = createNotificationSink(h.server.runtime.ctx.notifications, {
      sessionId,
      requestId: "req-1",
      plugin: "weather",
    });
    const record = await notify({ key: "forecast", ...basic });
    expect(record).toMatchObject({
      session_id: sessionId,
      request_id: "req-1",
      source: { plugin: "weather" },
      display: { presentation: "inline" },
    });
    expect(h.api.session(sessionId).list()).toEqual([record]);
  });

  it("resolves to null, without throwing, for invalid input, a conflict or a missing session", async () => {
    const sessionId = await h.newSession();
    const notify = createNotificationSink(h.server.runtime.ctx.notifications, { sessionId, requestId: "req-1" });
    await expect(notify({ key: "x", ...basic, ui_effects: { navigate_to_session_id: "s" } })).resolves.toBeNull();
    await expect(notify({ key: "x", ...basic, retention: { policy: "sometimes" } })).resolves.toBeNull();
    await expect(notify("not an object")).resolves.toBeNull();
    await expect(notify(null)).resolves.toBeNull();
    await notify({ key: "ask", kind: "interaction", ...basic });
    await expect(notify({ key: "ask", kind: "notification", ...basic })).resolves.toBeNull();
    const orphan = createNotificationSink(h.server.runtime.ctx.notifications, {
      sessionId: "gone",
      requestId: "req-1",
    });
    await expect(orphan({ key: "x", ...basic })).resolves.toBeNull();
    expect(
      h.api
        .session(sessionId)
        .list()
        .map((r) => r.key),
    ).toEqual(["ask"]);
  });
});
