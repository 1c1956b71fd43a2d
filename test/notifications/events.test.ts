// Notification events: wire shape, scope fields, order against the session checkpoint, best-effort publication.
import { describe, expect, it, vi } from "vitest";
import { notificationEventSchema } from "../../client/wire/notification.ts";
import type { PublishInput } from "../../server/events/event-store.ts";
import { basic, useHarness } from "./helpers.ts";

const h = useHarness();

describe("notification events", () => {
  it("application events: created, updated, dismissed, expired; no session_id; each carries the full record", async () => {
    const a = h.api.application.create({ key: "a", ...basic });
    h.api.application.updateByKey({ key: "a", ...basic, title: "two" });
    const dismissed = await h.server.request({
      method: "POST",
      url: `/application/notifications/${a.id}/dismiss`,
      payload: {},
    });
    h.api.application.create({ key: "b", ...basic });
    h.api.application.expire({ key: "b" });
    h.api.application.create({ key: "c", ...basic });
    const resolved = h.api.application.resolve({ key: "c" });
    const events = await h.notificationEvents();
    expect(events.map((e) => e.type)).toEqual([
      "application_notification_created",
      "application_notification_updated",
      "application_notification_dismissed",
      "application_notification_created",
      "application_notification_expired",
      "application_notification_created",
      "application_notification_updated",
    ]);
    for (const event of events) {
      expect(notificationEventSchema.parse(event)).toBeTruthy();
      expect(event).not.toHaveProperty("session_id");
      expect(event).not.toHaveProperty("request_id");
      expect(event.revision).toBe(event.notification.revision);
    }
    expect(events[2]!.notification).toEqual(dismissed.json);
    expect(events[6]!.notification).toEqual(resolved);
  });

  it("session events carry session_id, come before the checkpoint, and the session cursor is past them", async () => {
    const sessionId = await h.newSession();
    const ops = h.api.session(sessionId);
    const rec = ops.create({ key: "a", ...basic, request_id: "req-1" });
    ops.resolve({ key: "a" });
    const all = (await h.server.request({ method: "GET", url: `/events?since_id=0` })).json.events as Array<
      Record<string, any>
    >;
    const types = all.map((e) => e.type);
    expect(types).toEqual([
      "session_created",
      "checkpoint",
      "session_notification_created",
      "checkpoint",
      "session_notification_resolved",
      "checkpoint",
    ]);
    for (const event of all.filter((e) => String(e.type).startsWith("session_notification"))) {
      expect(notificationEventSchema.parse(event)).toMatchObject({ session_id: sessionId, notification_id: rec.id });
      expect(event).not.toHaveProperty("request_id");
    }
    const snapshot = (await h.server.request({ method: "GET", url: `/sessions/${sessionId}/messages` })).json;
    expect(snapshot.cursor_event_id).toBe(all.at(-1)!.event_id);
  });

  it("a failing publication never fails the mutation: the record commits, the event is skipped", async () => {
    const { events } = h.server.runtime.ctx;
    const original = events.publish.bind(events);
    const spy = vi.spyOn(events, "publish").mockImplementation(<E extends PublishInput>(input: E) => {
      const stored = original(input);
      // Fails after writing its row: the savepoint must take the row back, and only the row.
      if (input.type.includes("notification")) throw new Error("event store failed mid-publish");
      return stored;
    });
    const sessionId = await h.newSession();
    const app = h.api.application.create({ key: "a", ...basic });
    const sess = h.api.session(sessionId).create({ key: "a", ...basic });
    const dismissed = await h.server.request({
      method: "POST",
      url: `/application/notifications/${app.id}/dismiss`,
      payload: {},
    });
    spy.mockRestore();
    expect(dismissed.status).toBe(200);
    expect(h.api.application.list({ include_terminal: true })).toEqual([dismissed.json]);
    expect(h.api.session(sessionId).list()).toEqual([sess]);
    expect(await h.notificationEvents()).toEqual([]);
    // The session change itself still committed with its checkpoint.
    const types = (
      (await h.server.request({ method: "GET", url: "/events?since_id=0" })).json.events as Array<{ type: string }>
    ).map((e) => e.type);
    expect(types).toEqual(["session_created", "checkpoint", "checkpoint"]);
  });

  it("a rejected operation publishes nothing and changes nothing", async () => {
    const sessionId = await h.newSession();
    const version = (await h.server.request({ method: "GET", url: `/sessions/${sessionId}` })).json.session.version;
    expect(() => h.api.session(sessionId).resolve({ key: "none" })).toThrow();
    expect(() => h.api.application.create({ key: "x", ...basic, display: { presentation: "inline" } })).toThrow();
    expect(await h.notificationEvents()).toEqual([]);
    expect((await h.server.request({ method: "GET", url: `/sessions/${sessionId}` })).json.session.version).toBe(
      version,
    );
  });
});
