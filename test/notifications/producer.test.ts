// Producer operations through the plugin API, in both scopes, on a real runtime.
import { describe, expect, it } from "vitest";
import { notificationRecordSchema } from "../../client/wire/notification.ts";
import {
  NotificationConflictError,
  NotificationNotFoundError,
  NotificationValidationError,
} from "../../server/notifications/errors.ts";
import type { ProducerOperations } from "../../server/notifications/api.ts";
import { basic, OP_A, OP_B, useHarness } from "./helpers.ts";

const h = useHarness();

function validationPaths(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof NotificationValidationError) return error.issues.map((i) => i.path);
    throw error;
  }
  throw new Error("expected a NotificationValidationError");
}

const scopes: Array<[string, () => Promise<ProducerOperations>]> = [
  ["application", async () => h.api.application],
  ["session", async () => h.api.session(await h.newSession())],
];

describe.each(scopes)("producer operations (%s scope)", (_scope, open) => {
  it("create then update by key keeps the id and increments the revision; the store assigns the lifecycle fields", async () => {
    const ops = await open();
    const first = ops.create({ key: "build", ...basic });
    expect(notificationRecordSchema.parse(first)).toEqual(first);
    expect(first).toMatchObject({
      revision: 1,
      status: "pending",
      kind: "notification",
      source: { plugin: "test-plugin" },
      model_visibility: "hidden",
    });
    h.clock.advance(1000);
    const second = ops.updateByKey({ key: "build", severity: "success", title: "Build done" });
    expect(second).toMatchObject({
      id: first.id,
      revision: 2,
      title: "Build done",
      created_at: first.created_at,
      updated_at: "2030-01-01T00:00:01.000Z",
    });
    expect(ops.list()).toEqual([second]);
  });

  it("starts a new occurrence with a new id once the previous one is terminal", async () => {
    const ops = await open();
    const first = ops.create({ key: "build", ...basic });
    const resolved = ops.resolve({ key: "build", detail: { outcome: "ok" } });
    expect(resolved).toMatchObject({ id: first.id, status: "resolved", revision: 2, resolution: { outcome: "ok" } });
    const next = ops.create({ key: "build", ...basic });
    expect(next.id).not.toBe(first.id);
    expect(next.revision).toBe(1);
    expect(ops.history().map((r) => [r.id, r.status])).toEqual([
      [first.id, "resolved"],
      [next.id, "pending"],
    ]);
  });

  it("updates by id, expires by key, and refuses to touch a terminal record", async () => {
    const ops = await open();
    const first = ops.create({ key: "sync", ...basic });
    expect(ops.updateById(first.id, { body: "50%" })).toMatchObject({ revision: 2, body: "50%" });
    expect(ops.expire({ key: "sync" })).toMatchObject({ status: "expired", revision: 3 });
    expect(() => ops.updateById(first.id, { body: "late" })).toThrow(NotificationConflictError);
    expect(() => ops.updateById("nope", { body: "x" })).toThrow(NotificationNotFoundError);
    expect(() => ops.resolve({ key: "sync" })).toThrow(NotificationNotFoundError);
  });

  it("creates a new occurrence directly in its target state when resolving a key without an active one", async () => {
    const ops = await open();
    const done = ops.resolve({ key: "import", ...basic });
    expect(done).toMatchObject({ status: "resolved", revision: 1 });
    expect(ops.list()).toEqual([]);
  });

  it("guards occurrences by operation id: a late update of an older operation is rejected", async () => {
    const ops = await open();
    ops.create({ key: "deploy", ...basic, operation_id: OP_A });
    ops.resolve({ key: "deploy", operation_id: OP_A });
    const current = ops.create({ key: "deploy", ...basic, operation_id: OP_B });
    expect(() => ops.updateByKey({ key: "deploy", ...basic, title: "stale", operation_id: OP_A })).toThrow(
      NotificationConflictError,
    );
    expect(() => ops.resolve({ key: "deploy", operation_id: OP_A })).toThrow(NotificationConflictError);
    expect(ops.list()).toEqual([current]);
    expect(ops.updateByKey({ key: "deploy", ...basic, title: "newer", operation_id: OP_B })).toMatchObject({
      id: current.id,
      revision: 2,
    });
    expect(validationPaths(() => ops.create({ key: "deploy", ...basic, operation_id: "not-an-operation" }))).toEqual([
      "operation_id",
    ]);
  });

  it("runs the interaction lifecycle and never lets one be dismissed", async () => {
    const ops = await open();
    const asked = ops.create({ key: "approve", kind: "interaction", ...basic });
    expect(asked.status).toBe("pending_response");
    expect(() => ops.resolve({ key: "approve" })).toThrow(NotificationConflictError);
    expect(ops.suspend({ key: "approve" }).status).toBe("suspended");
    expect(ops.respond({ key: "approve", detail: { answer: "yes" } })).toMatchObject({
      status: "responded",
      response: { answer: "yes" },
    });
    expect(ops.resolve({ key: "approve" })).toMatchObject({ status: "resolved", revision: 4 });
    const other = ops.create({ key: "confirm", kind: "interaction", ...basic });
    expect(ops.cancel({ key: "confirm" }).status).toBe("cancelled");
    expect(() => ops.cancel({ key: "confirm" })).toThrow(NotificationNotFoundError);
    expect(other.id).toBeTruthy();
  });

  it("keeps ui_effects as a command of the revision that supplies it, preserving unknown JSON fields", async () => {
    const ops = await open();
    const effects = { reload_session_ids: ["s1", "s2"], reload_sessions_list: true, future_effect: { depth: [1, 2] } };
    const first = ops.create({ key: "fx", ...basic, ui_effects: effects });
    expect(first.ui_effects).toEqual(effects);
    const second = ops.updateByKey({ key: "fx", ...basic, title: "again" });
    expect(second).not.toHaveProperty("ui_effects");
  });

  it("rejects bad ui_effects, unknown presentations and unsupported retention with issue paths", async () => {
    const ops = await open();
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, ui_effects: { navigate_to_session_id: "s1" } })),
    ).toEqual(["ui_effects.navigate_to_session_id"]);
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, ui_effects: { reload_session_ids: ["a", "a"] } })),
    ).toEqual(["ui_effects.reload_session_ids"]);
    expect(validationPaths(() => ops.create({ key: "x", ...basic, ui_effects: { reload_session_ids: [""] } }))).toEqual(
      ["ui_effects.reload_session_ids.0"],
    );
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, ui_effects: { reload_sessions_list: "yes" } as never })),
    ).toEqual(["ui_effects.reload_sessions_list"]);
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, display: { presentation: "toast" } as never })),
    ).toEqual(["display.presentation"]);
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, retention: { policy: "forever" } as never })),
    ).toEqual(["retention.policy"]);
    expect(validationPaths(() => ops.create({ key: "x", ...basic, retention: { policy: "ttl" } }))).toEqual([
      "retention.expires_at",
    ]);
    expect(
      validationPaths(() => ops.create({ key: "x", ...basic, retention: { policy: "until_request_complete" } })),
    ).toEqual(["request_id"]);
    expect(validationPaths(() => ops.create({ ...basic } as never))).toEqual(["key"]);
    expect(ops.list()).toEqual([]);
  });
});

describe("presentation by scope", () => {
  it("rejects inline application notifications and defaults them to banner", () => {
    expect(() => h.api.application.create({ key: "x", ...basic, display: { presentation: "inline" } })).toThrow(
      NotificationValidationError,
    );
    expect(h.api.application.create({ key: "x", ...basic }).display.presentation).toBe("banner");
    expect(
      h.api.application.create({ key: "y", ...basic, display: { presentation: "modal", icon: "cog" } }).display,
    ).toEqual({ presentation: "modal", icon: "cog" });
  });

  it("defaults session notifications to inline and stamps the owning session", async () => {
    const sessionId = await h.newSession();
    const record = h.api.session(sessionId).create({ key: "x", ...basic });
    expect(record).toMatchObject({ session_id: sessionId, display: { presentation: "inline" } });
  });

  it("application snapshot holds the active records only", () => {
    const a = h.api.application.create({ key: "a", ...basic });
    h.api.application.create({ key: "b", ...basic });
    h.api.application.resolve({ key: "b" });
    expect(h.api.application.snapshot()).toEqual({ notifications: [a] });
  });
});

describe("concurrent producers on one key", () => {
  it("loses no update and never makes a second active occurrence", async () => {
    const sessionId = await h.newSession();
    const ops = h.api.session(sessionId);
    const n = 25;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        Promise.resolve().then(() =>
          (i % 2 ? h.api.application : ops).updateByKey({ key: "progress", ...basic, body: `${i}` }),
        ),
      ),
    );
    for (const scope of [h.api.application, ops]) {
      const active = scope.list();
      expect(active).toHaveLength(1);
      const mine = results.filter((r) => r.id === active[0]!.id);
      expect(mine.map((r) => r.revision).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: mine.length }, (_, i) => i + 1),
      );
      expect(active[0]!.revision).toBe(mine.length);
    }
  });
});
