// List and dismiss routes of both scopes over app.inject, legacy records, and real concurrent dismissals.
import { beforeEach, describe, expect, it } from "vitest";
import { notificationListSchema, notificationRecordSchema } from "../../client/wire/notification.ts";
import { legacyNotificationRecord } from "../support/notification-record.ts";
import { basic, useHarness } from "./helpers.ts";

const h = useHarness();

interface Scope {
  name: string;
  base(): Promise<string>;
  create(key: string, extra?: object): Promise<{ id: string }>;
}

const scopes: Scope[] = [
  {
    name: "application",
    base: async () => "/application/notifications",
    create: async (key, extra = {}) => h.api.application.create({ key, ...basic, ...extra }),
  },
  {
    name: "session",
    base: async () => `/sessions/${(sessionId ??= await h.newSession())}/notifications`,
    create: async (key, extra = {}) =>
      h.api.session((sessionId ??= await h.newSession())).create({ key, ...basic, ...extra }),
  },
];
let sessionId: string | undefined;
beforeEach(() => {
  sessionId = undefined;
});

describe.each(scopes)("$name notification routes", (scope) => {
  const get = async (query = "") => h.server.request({ method: "GET", url: `${await scope.base()}${query}` });
  const dismiss = async (id: string, payload?: object) =>
    h.server.request({ method: "POST", url: `${await scope.base()}/${id}/dismiss`, ...(payload ? { payload } : {}) });

  it("lists active records, and terminal ones with include_terminal=true", async () => {
    const a = await scope.create("a");
    const b = await scope.create("b");
    expect((await dismiss(b.id)).status).toBe(200);
    const active = await get();
    expect(active.status).toBe(200);
    expect(notificationListSchema.parse(active.json).map((r) => r.id)).toEqual([a.id]);
    expect((await get("?include_terminal=false")).json.map((r: { id: string }) => r.id)).toEqual([a.id]);
    expect((await get("?include_terminal=true")).json.map((r: { id: string }) => r.id)).toEqual([a.id, b.id]);
  });

  it("dismisses with the expected revision: 200 with the dismissed record, revision + 1, reason kept", async () => {
    const a = await scope.create("a");
    const res = await dismiss(a.id, { expected_revision: 1, reason: "seen" });
    expect(res.status).toBe(200);
    expect(notificationRecordSchema.parse(res.json)).toMatchObject({
      id: a.id,
      status: "dismissed",
      revision: 2,
      dismissal: { reason: "seen" },
    });
  });

  it("answers 409 with the current record for a stale revision, and does not overwrite it", async () => {
    const a = await scope.create("a");
    const current = await scope.create("a", { title: "newer" });
    const res = await dismiss(a.id, { expected_revision: 1 });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ id: a.id, revision: 2, status: "pending", title: "newer" });
    expect(res.json).toEqual((await get()).json[0]);
    expect(current.id).toBe(a.id);
  });

  it("answers 409 with the current record for an invalid transition (terminal record, or an interaction)", async () => {
    const a = await scope.create("a");
    await dismiss(a.id);
    const again = await dismiss(a.id);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ id: a.id, status: "dismissed", revision: 2 });
    const ask = await scope.create("ask", { kind: "interaction" });
    const refused = await dismiss(ask.id);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ id: ask.id, status: "pending_response", revision: 1 });
  });

  it("answers 404 for an unknown id and 400 for bad input", async () => {
    const missing = await dismiss("no-such-id");
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("notification_not_found");
    const a = await scope.create("a");
    for (const payload of [{ expected_revision: 0 }, { expected_revision: true }, { reason: 5 }, { unknown: 1 }]) {
      const res = await dismiss(a.id, payload);
      expect(res.status, JSON.stringify(payload)).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
    const badQuery = await get("?include_terminal=maybe");
    expect(badQuery.status).toBe(400);
    expect(badQuery.json.error.details[0].path).toBe("query.include_terminal");
  });
});

describe("session scope specifics", () => {
  it("answers 404 session_not_found for an unknown session on both routes", async () => {
    const list = await h.server.request({ method: "GET", url: "/sessions/nope/notifications" });
    expect(list.status).toBe(404);
    expect(list.json.error.code).toBe("session_not_found");
    const res = await h.server.request({ method: "POST", url: "/sessions/nope/notifications/x/dismiss", payload: {} });
    expect(res.status).toBe(404);
  });

  it("keeps session notifications in metadata.notifications.items, each change a new session version", async () => {
    const id = await h.newSession();
    const before = (await h.server.request({ method: "GET", url: `/sessions/${id}` })).json.session;
    const record = h.api.session(id).create({ key: "a", ...basic });
    const after = (await h.server.request({ method: "GET", url: `/sessions/${id}` })).json.session;
    expect(after.version).toBe(before.version + 1);
    expect(after.metadata.notifications.items).toEqual([record]);
    // Never part of the conversation the provider sees: messages are untouched.
    expect(after.messages).toEqual(before.messages);
    expect(record.model_visibility).toBe("hidden");
  });
});

describe("legacy records without revision", () => {
  const legacy = legacyNotificationRecord({
    id: "legacy-1",
    key: "old",
    severity: "warning",
    title: "from before revisions",
    created_at: "2020-01-01T00:00:00.000Z",
    updated_at: "2020-01-02T00:00:00.000Z",
    source: { plugin: "old" },
  });

  it("application: updated_at is the expected-revision token; the first mutation gives revision 1", async () => {
    h.server.runtime.ctx.db
      .prepare(
        "INSERT INTO application_notifications (id, key, active, request_id, retention_policy, terminal_seq, body) VALUES (?, ?, 1, NULL, ?, NULL, ?)",
      )
      .run(legacy.id, legacy.key, "until_resolved", JSON.stringify(legacy));
    const url = `/application/notifications/${legacy.id}/dismiss`;
    expect((await h.server.request({ method: "POST", url, payload: { expected_revision: 1 } })).status).toBe(409);
    expect(
      (await h.server.request({ method: "POST", url, payload: { expected_revision: "2020-01-01T00:00:00.000Z" } }))
        .status,
    ).toBe(409);
    const res = await h.server.request({ method: "POST", url, payload: { expected_revision: legacy.updated_at } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: legacy.id, revision: 1, status: "dismissed" });
  });

  it("session: a legacy item in metadata gains revision 1 on its first producer update", async () => {
    const id = await h.newSession();
    h.server.runtime.ctx.sessions.change(id, (s) => ({
      next: {
        ...s,
        metadata: {
          ...s.metadata,
          notifications: { items: [{ ...legacy, display: { presentation: "inline" } }, { broken: true }] },
        },
      },
      events: () => [],
      result: () => undefined,
    }));
    const updated = h.api.session(id).updateByKey({ key: "old", severity: "info", title: "refreshed" });
    expect(updated).toMatchObject({ id: legacy.id, revision: 1, title: "refreshed" });
    const session = (await h.server.request({ method: "GET", url: `/sessions/${id}` })).json.session;
    // The malformed item is ignored by the service and kept untouched.
    expect(session.metadata.notifications.items).toEqual([updated, { broken: true }]);
    const res = await h.server.request({
      method: "POST",
      url: `/sessions/${id}/notifications/${legacy.id}/dismiss`,
      payload: { expected_revision: 1 },
    });
    expect(res.json).toMatchObject({ revision: 2, status: "dismissed" });
  });
});

describe("racing dismissals over real HTTP", () => {
  it("two dismissals with the same expected revision: exactly one 200 and one 409, revision + 1 once", async () => {
    const address = await h.server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const sessionId = await h.newSession();
    const targets = [
      { url: "/application/notifications", record: h.api.application.create({ key: "race", ...basic }) },
      {
        url: `/sessions/${sessionId}/notifications`,
        record: h.api.session(sessionId).create({ key: "race", ...basic }),
      },
    ];
    for (const { url, record } of targets) {
      const send = () =>
        fetch(`${address}${url}/${record.id}/dismiss`, {
          method: "POST",
          headers: { "authorization": "Bearer test-admin-token", "content-type": "application/json" },
          body: JSON.stringify({ expected_revision: 1 }),
        });
      const answers = await Promise.all([send(), send()]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const bodies = await Promise.all(answers.map((a) => a.json()));
      for (const body of bodies) expect(body).toMatchObject({ id: record.id, revision: 2, status: "dismissed" });
      const listed = await fetch(`${address}${url}?include_terminal=true`, {
        headers: { authorization: "Bearer test-admin-token" },
      });
      expect(((await listed.json()) as Array<{ revision: number }>)[0]!.revision).toBe(2);
    }
  });
});
