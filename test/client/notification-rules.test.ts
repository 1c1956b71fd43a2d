// Notification rules 1-4 and UI rules 1-8 (docs/client.md "The rules, numbered"), one table-driven test each,
// on the notification center with a scripted HTTP peer (the real-server versions are in the fault suites).
import { describe, expect, it } from "vitest";
import { NotificationCenter } from "../../client/notifications/center.ts";
import type { DismissMode } from "../../client/notifications/dismissal.ts";
import { memoryStorage, type StorageAdapter } from "../../client/storage/storage.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FakeServer } from "./support/fake-http.ts";
import { appEvent, record, sessionEvent } from "./support/records.ts";

const APP = "/application/notifications";

function harness(mode: DismissMode = "mobile", storage: StorageAdapter = memoryStorage(), snapshot: unknown[] = []) {
  const server = new FakeServer();
  server.set("GET", APP, { status: 200, body: snapshot });
  const problems: string[] = [];
  const center = new NotificationCenter({
    http: server.api,
    storage,
    timers: { now: () => 1000, sleep: () => new Promise<void>(() => undefined), timer: () => () => undefined },
    connectionId: "srv/dev",
    mode,
    report: (message) => problems.push(message),
  });
  const shown = () => center.application.get().map((item) => `${item.record.id}@${item.record.revision}`);
  return { server, center, problems, shown };
}

describe("notification list answers", () => {
  // The list routes answer "a list of notification records" (a bare array); servers before that change
  // answered {notifications: [...]}. Both load the same snapshot, record by record.
  it.each([
    ["a bare array", (records: unknown[]) => records],
    ["{notifications} from an older server", (records: unknown[]) => ({ notifications: records })],
  ])("accepts %s", async (_name, wrap) => {
    const { server, center, problems, shown } = harness();
    server.set("GET", APP, { status: 200, body: wrap([record("a", 1), { id: "broken" }, record("b", 2)]) });
    await center.reloadAll();
    expect(shown()).toEqual(["a@1", "b@2"]);
    expect(problems).toEqual(["malformed notification record"]);
    server.set("GET", APP, { status: 200, body: wrap([record("a", 1), record("z", 3, { status: "dismissed" })]) });
    expect((await center.history({ scope: "application" })).map((r) => r.id)).toEqual(["a", "z"]);
  });

  it("refuses an answer that is neither", async () => {
    const { server, center } = harness();
    server.set("GET", APP, { status: 200, body: { items: [record("a", 1)] } });
    await expect(center.reloadAll()).rejects.toThrow(/unexpected answer/);
  });
});

describe("notification rule 1: created and updated events upsert by id", () => {
  const cases: Array<[string, AnyEvent[], string[]]> = [
    ["create", [appEvent("application_notification_created", record("a", 1))], ["a@1"]],
    [
      "update replaces",
      [
        appEvent("application_notification_created", record("a", 1)),
        appEvent("application_notification_updated", record("a", 2)),
      ],
      ["a@2"],
    ],
    [
      "older revision never wins",
      [
        appEvent("application_notification_updated", record("a", 3)),
        appEvent("application_notification_updated", record("a", 2)),
      ],
      ["a@3"],
    ],
    [
      "terminal leaves",
      [
        appEvent("application_notification_created", record("a", 1)),
        appEvent("application_notification_dismissed", record("a", 2, { status: "dismissed" })),
      ],
      [],
    ],
    [
      "no resurrection",
      [
        appEvent("application_notification_expired", record("a", 2, { status: "expired" })),
        appEvent("application_notification_updated", record("a", 1)),
      ],
      [],
    ],
  ];
  it.each(cases)("%s", (_name, events, expected) => {
    const { center, shown } = harness();
    for (const event of events) center.handleEvent(event);
    expect(shown()).toEqual(expected);
  });
});

describe("notification rule 2: snapshots are the authority, events only accelerate", () => {
  const cases: Array<[string, AnyEvent[], unknown[], AnyEvent[], string[]]> = [
    [
      "snapshot drops what it does not hold",
      [appEvent("application_notification_created", record("a", 1))],
      [record("b", 1)],
      [],
      ["b@1"],
    ],
    [
      "snapshot replaces older local copy",
      [appEvent("application_notification_created", record("a", 1))],
      [record("a", 4)],
      [],
      ["a@4"],
    ],
    [
      "event newer than the snapshot in flight wins",
      [],
      [record("a", 1)],
      [appEvent("application_notification_updated", record("a", 2))],
      ["a@2"],
    ],
    [
      "event created during the snapshot survives it",
      [],
      [],
      [appEvent("application_notification_created", record("n", 1))],
      ["n@1"],
    ],
  ];
  it.each(cases)("%s", async (_name, before, snapshot, during, expected) => {
    const { center, server, shown } = harness();
    for (const event of before) center.handleEvent(event);
    server.set("GET", APP, () => {
      for (const event of during) center.handleEvent(event);
      return { status: 200, body: snapshot };
    });
    await center.reloadAll();
    expect(shown()).toEqual(expected);
  });
});

describe("notification rule 3: application events need no session filter; session events need a session", () => {
  const cases: Array<[string, AnyEvent, string[], string[]]> = [
    ["application event", appEvent("application_notification_created", record("a", 1)), ["a@1"], []],
    [
      "session event",
      sessionEvent(
        "session_notification_created",
        "s1",
        record("s", 1, { session_id: "s1", display: { presentation: "inline" } }),
      ),
      [],
      ["s@1"],
    ],
    [
      "application event with a session_id is refused",
      { ...appEvent("application_notification_created", record("x", 1)), session_id: "s1" },
      [],
      [],
    ],
    ["session event without session_id is refused", appEvent("session_notification_created", record("y", 1)), [], []],
  ];
  it.each(cases)("%s", (_name, event, app, session) => {
    const { center, shown } = harness();
    center.handleEvent(event);
    expect(shown()).toEqual(app);
    expect(
      center
        .session("s1")
        .get()
        .map((item) => `${item.record.id}@${item.record.revision}`),
    ).toEqual(session);
  });
});

describe("notification rule 4: unknown event types and malformed records are ignored, never thrown", () => {
  const cases: Array<[string, AnyEvent | unknown[]]> = [
    [
      "unknown type",
      { event_id: "00000000000000000001", type: "application_notification_teleported", notification: record("a", 1) },
    ],
    ["record missing title", appEvent("application_notification_created", { ...record("a", 1), title: undefined })],
    [
      "record not an object",
      { event_id: "00000000000000000002", type: "application_notification_created", notification: 7 },
    ],
    ["malformed record in a snapshot", [{ id: "broken" }]],
  ];
  it.each(cases)("%s", async (_name, input) => {
    const { center, shown, server } = harness();
    if (Array.isArray(input)) {
      server.set("GET", APP, { status: 200, body: [...input, record("ok", 1)] });
      await center.reloadAll();
      expect(shown()).toEqual(["ok@1"]);
    } else {
      expect(() => center.handleEvent(input)).not.toThrow();
      expect(shown()).toEqual([]);
    }
  });
});

describe("UI rule 1: ui_effects belong to the revision that carries them; only pending revisions execute", () => {
  const cases: Array<[string, Array<Record<string, unknown>>, number]> = [
    ["pending revision with effects", [record("a", 1, { ui_effects: { reload_sessions_list: true } })], 1],
    ["update without ui_effects stores none", [record("a", 1), record("a", 2)], 0],
    [
      "dismissed record with effects",
      [record("a", 1, { status: "dismissed", ui_effects: { reload_sessions_list: true } })],
      0,
    ],
    [
      "resolved record with effects",
      [record("a", 1, { status: "resolved", ui_effects: { reload_sessions_list: true } })],
      0,
    ],
    [
      "expired record with effects",
      [record("a", 1, { status: "expired", ui_effects: { reload_sessions_list: true } })],
      0,
    ],
  ];
  it.each(cases)("%s", (_name, records, invalidations) => {
    const { center } = harness();
    for (const rec of records) center.handleEvent(appEvent("application_notification_updated", rec));
    expect(center.invalidations.pending.get()).toHaveLength(invalidations);
  });
});

describe("UI rule 2: observation is deduplicated by connection, scope, id and revision", () => {
  const effects = { ui_effects: { reload_session_ids: ["s9"] } };
  const cases: Array<[string, Array<[Record<string, unknown>, "event" | "snapshot"]>, number]> = [
    [
      "same revision seen twice (event then snapshot)",
      [
        [record("a", 1, effects), "event"],
        [record("a", 1, effects), "snapshot"],
      ],
      1,
    ],
    [
      "newer pending revision requests again",
      [
        [record("a", 1, effects), "event"],
        [record("a", 2, effects), "event"],
      ],
      2,
    ],
    [
      "rehydration from the latest pending revision requests once",
      [
        [record("a", 3, effects), "snapshot"],
        [record("a", 3, effects), "snapshot"],
      ],
      1,
    ],
  ];
  it.each(cases)("%s", async (_name, steps, revisions) => {
    const { center, server } = harness();
    for (const [rec, via] of steps) {
      if (via === "event") center.handleEvent(appEvent("application_notification_updated", rec));
      else {
        server.set("GET", APP, { status: 200, body: [rec] });
        await center.reloadAll();
      }
    }
    expect(center.invalidations.get({ kind: "session", session_id: "s9" })?.revision).toBe(revisions);
  });
});

describe("UI rule 3: invalidation state per target until a successful reload of the matching revision", () => {
  type Step = "invalidate" | "claim" | "claim2" | "succeed" | "fail" | "decline" | "succeed_old";
  const cases: Array<[string, Step[], { pending: boolean; revision?: number; secondClaim?: boolean }]> = [
    ["pending until reloaded", ["invalidate"], { pending: true, revision: 1 }],
    ["a successful reload clears it", ["invalidate", "claim", "succeed"], { pending: false }],
    ["a failed reload leaves it pending", ["invalidate", "claim", "fail"], { pending: true, revision: 1 }],
    ["a declining consumer leaves it pending", ["invalidate", "claim", "decline"], { pending: true, revision: 1 }],
    [
      "at most one claim per revision",
      ["invalidate", "claim", "claim2"],
      { pending: true, revision: 1, secondClaim: false },
    ],
    [
      "a newer invalidation supersedes; the late ack of the older cannot clear it",
      ["invalidate", "claim", "invalidate", "succeed_old"],
      { pending: true, revision: 2 },
    ],
    [
      "the newer revision may be claimed while the older claim is out",
      ["invalidate", "claim", "invalidate", "claim2"],
      { pending: true, revision: 2, secondClaim: true },
    ],
  ];
  it.each(cases)("%s", (_name, steps, expected) => {
    const { center } = harness();
    const target = { kind: "sessions_list" } as const;
    const source = { scope: "application" as const, notification_id: "a", revision: 1 };
    let claim: ReturnType<typeof center.invalidations.claim>;
    let second: boolean | undefined;
    for (const step of steps) {
      if (step === "invalidate") center.invalidations.invalidate(target, source);
      if (step === "claim") claim = center.invalidations.claim(target);
      if (step === "claim2") second = center.invalidations.claim(target) !== undefined;
      if (step === "succeed" || step === "succeed_old") claim!.succeed();
      if (step === "fail") claim!.fail();
      if (step === "decline") claim!.decline();
    }
    const slot = center.invalidations.get(target);
    expect(slot !== undefined).toBe(expected.pending);
    if (expected.revision) expect(slot?.revision).toBe(expected.revision);
    if (expected.secondClaim !== undefined) expect(second).toBe(expected.secondClaim);
  });

  it("keeps one slot per session id, per connection", () => {
    const { center } = harness();
    center.handleEvent(
      appEvent(
        "application_notification_created",
        record("a", 1, { ui_effects: { reload_session_ids: ["s1", "s2"], reload_application_actions: true } }),
      ),
    );
    expect(center.invalidations.pending.get().map((i) => i.target)).toEqual([
      { kind: "session", session_id: "s1" },
      { kind: "session", session_id: "s2" },
      { kind: "application_actions" },
    ]);
  });
});

describe("UI rule 5: mobile dismissal caches the exact revision and hides it before the server call", () => {
  type Case = [
    string,
    { answer: "ok" | "unreachable" | "409-newer" | "409-terminal"; thenSnapshot?: unknown[] },
    { shown: string[]; cached: number; posts: number[] },
  ];
  const cases: Case[] = [
    ["success removes it and the entry", { answer: "ok" }, { shown: [], cached: 0, posts: [1] }],
    ["unreachable keeps it hidden and cached", { answer: "unreachable" }, { shown: [], cached: 1, posts: [1] }],
    [
      "retried with the same revision on reconnect",
      { answer: "unreachable", thenSnapshot: [record("a", 1)] },
      { shown: [], cached: 1, posts: [1, 1] },
    ],
    [
      "a newer pending revision ends the entry and shows",
      { answer: "unreachable", thenSnapshot: [record("a", 2)] },
      { shown: ["a@2"], cached: 0, posts: [1] },
    ],
    [
      "a missing record ends the entry",
      { answer: "unreachable", thenSnapshot: [] },
      { shown: [], cached: 0, posts: [1] },
    ],
    [
      "a terminal record ends the entry",
      { answer: "unreachable", thenSnapshot: [record("a", 2, { status: "resolved" })] },
      { shown: [], cached: 0, posts: [1] },
    ],
    ["409 with a newer revision shows it", { answer: "409-newer" }, { shown: ["a@2"], cached: 0, posts: [1] }],
    ["409 with a terminal record removes it", { answer: "409-terminal" }, { shown: [], cached: 0, posts: [1] }],
  ];
  it.each(cases)("%s", async (_name, { answer, thenSnapshot }, expected) => {
    const storage = memoryStorage();
    const { center, server, shown } = harness("mobile", storage, [record("a", 1)]);
    await center.reloadAll();
    const dismiss = `/application/notifications/a/dismiss`;
    const answers = {
      "ok": { status: 200, body: record("a", 2, { status: "dismissed" }) },
      "unreachable": "unreachable" as const,
      "409-newer": { status: 409, body: record("a", 2) },
      "409-terminal": { status: 409, body: record("a", 2, { status: "expired" }) },
    };
    server.set("POST", dismiss, answers[answer]);
    const item = center.application.get()[0]!;
    const pending = center.dismiss(item);
    expect(shown()).toEqual([]); // hidden before the server answers
    await pending;
    if (thenSnapshot) {
      server.set("GET", APP, { status: 200, body: thenSnapshot });
      await center.reloadAll();
    }
    expect(shown()).toEqual(expected.shown);
    expect(JSON.parse((await storage.getItem("dismissals:srv/dev")) ?? "[]")).toHaveLength(expected.cached);
    expect(
      server.calls
        .filter((c) => c.method === "POST")
        .map((c) => (c.body as { expected_revision: number }).expected_revision),
    ).toEqual(expected.posts);
  });

  it("drops a retried dismissal the server refuses for good (404), reports it, and still shows the snapshot", async () => {
    const storage = memoryStorage();
    const { center, server, shown, problems } = harness("mobile", storage, [record("a", 1)]);
    await center.reloadAll();
    server.set("POST", "/application/notifications/a/dismiss", "unreachable");
    await center.dismiss(center.application.get()[0]!);
    server.set("POST", "/application/notifications/a/dismiss", {
      status: 404,
      body: { error: { code: "notification_not_found", message: "gone" } },
    });
    server.set("GET", APP, { status: 200, body: [record("a", 1), record("b", 1)] });
    await center.reloadAll();
    // The dismissal could not happen: the record shows again (the user may dismiss it anew), the entry is gone.
    expect(shown()).toEqual(["a@1", "b@1"]);
    expect(JSON.parse((await storage.getItem("dismissals:srv/dev")) ?? "[]")).toHaveLength(0);
    expect(problems).toContain("a dismissal the server refuses for good was dropped");
  });

  it("never replaces the cached revision with a newer one, and retries after rehydration", async () => {
    const storage = memoryStorage();
    const first = harness("mobile", storage, [record("a", 1)]);
    await first.center.reloadAll();
    first.server.set("POST", "/application/notifications/a/dismiss", "unreachable");
    const item = first.center.application.get()[0]!;
    await first.center.dismiss(item);
    // A later dismiss of a newer revision of the same record (say, from another view) keeps revision 1 cached.
    const newer = { ...item, record: { ...item.record, revision: 2 } };
    expect(await first.center.dismiss(newer)).toMatchObject({ status: "queued", entry: { revision: 1 } });
    // The app restarts: a new center on the same storage retries revision 1 against the snapshot.
    const second = harness("mobile", storage, [record("a", 1)]);
    second.server.set("POST", "/application/notifications/a/dismiss", {
      status: 200,
      body: record("a", 2, { status: "dismissed" }),
    });
    await second.center.reloadAll();
    expect(first.server.calls.filter((c) => c.method === "POST").map((c) => c.body)).toEqual([
      { expected_revision: 1 },
      { expected_revision: 1 },
    ]);
    expect(second.server.calls.filter((c) => c.method === "POST").map((c) => c.body)).toEqual([
      { expected_revision: 1 },
    ]);
    expect(second.shown()).toEqual([]);
    expect(JSON.parse((await storage.getItem("dismissals:srv/dev")) ?? "[]")).toHaveLength(0);
  });
});

describe("UI rule 6: desktop dismissal succeeds only when the server mutation does", () => {
  const cases: Array<[string, "ok" | "unreachable" | "409", string[], "resolves" | "rejects"]> = [
    ["success hides it", "ok", [], "resolves"],
    ["failure keeps it visible", "unreachable", ["a@1"], "rejects"],
    ["conflict shows the current record", "409", ["a@3"], "resolves"],
  ];
  it.each(cases)("%s", async (_name, answer, expected, outcome) => {
    const { center, server, shown } = harness("desktop", memoryStorage(), [record("a", 1)]);
    await center.reloadAll();
    const answers = {
      "ok": { status: 200, body: record("a", 2, { status: "dismissed" }) },
      "unreachable": "unreachable" as const,
      "409": { status: 409, body: record("a", 3) },
    };
    server.set("POST", "/application/notifications/a/dismiss", answers[answer]);
    const pending = center.dismiss(center.application.get()[0]!);
    expect(shown()).toEqual(["a@1"]); // still visible while the call is out
    if (outcome === "rejects") await expect(pending).rejects.toThrow();
    else await pending;
    expect(shown()).toEqual(expected);
  });
});

describe("UI rule 7: a newly hydrated frontend filters dismissed terminal records", () => {
  it.each([["dismissed"], ["resolved"], ["expired"], ["cancelled"]])("%s", async (status) => {
    const { center, shown } = harness("mobile", memoryStorage(), [record("a", 2, { status }), record("b", 1)]);
    await center.reloadAll();
    expect(shown()).toEqual(["b@1"]);
  });
});

describe("UI rule 8: historical replay is display only", () => {
  it.each([["terminal record with effects"], ["pending record with effects"]])("%s", async (name) => {
    const { center, server, shown } = harness();
    const status = name.startsWith("terminal") ? "dismissed" : "pending";
    server.set("GET", APP, {
      status: 200,
      body: [record("h", 5, { status, ui_effects: { reload_sessions_list: true } })],
    });
    const history = await center.history({ scope: "application" });
    expect(history.map((r) => r.id)).toEqual(["h"]);
    expect(server.calls.at(-1)?.path).toBe(APP);
    expect(center.invalidations.pending.get()).toEqual([]);
    expect(shown()).toEqual([]);
    expect(server.calls.some((c) => c.method === "POST")).toBe(false);
  });
});
