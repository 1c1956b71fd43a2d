// The connection machine, table-driven: every (state, input) pair of the transition table has a row here, with
// the expected next state and effects. A new state or input fails the completeness check until rows are added.
import { describe, expect, it } from "vitest";
import {
  initialSnapshot,
  statusOf,
  transition,
  transitions,
  type Effect,
  type MachineContext,
  type MachineInput,
  type MachineState,
} from "../../client/connection/machine.ts";

const base: MachineContext = { bridgeJoined: false, bridgeDown: false, failures: 0 };
const at = (state: MachineState, context: Partial<MachineContext> = {}) => ({
  state,
  context: { ...base, ...context },
});
const e = (...types: Effect["type"][]) => types;

type Row = [
  MachineState,
  Partial<MachineContext>,
  MachineInput,
  MachineState,
  Effect["type"][],
  Partial<MachineContext>?,
];

const complete: MachineInput = { type: "bridge_joined", replay: "complete" };
const gap: MachineInput = { type: "bridge_joined", replay: "gap" };
const stopEffects = e("stop_poll", "cancel_retry", "close");
// The bridge's word on the server's link (join reply `server_online`, `server_status` pushes).
const serverOff: MachineInput = { type: "server_status", online: false, since: "2026-11-27T07:00:00.000Z" };
const serverOn: MachineInput = { type: "server_status", online: true, since: "2026-11-27T07:01:00.000Z" };
const completeOff: MachineInput = { type: "bridge_joined", replay: "complete", serverOnline: false };
const gapOff: MachineInput = { type: "bridge_joined", replay: "gap", serverOnline: false };
const offline = { online: false, since: "2026-11-27T07:00:00.000Z" };
const online = { online: true, since: "2026-11-27T07:01:00.000Z" };

const rows: Row[] = [
  // idle
  ["idle", {}, { type: "start" }, "catching_up", e("reload_snapshots", "catch_up")],
  ["idle", {}, { type: "caught_up" }, "idle", e()],
  ["idle", {}, { type: "http_failed" }, "idle", e()],
  ["idle", {}, { type: "polled" }, "idle", e()],
  ["idle", {}, { type: "retry_due" }, "idle", e()],
  ["idle", {}, { type: "cursor_expired" }, "idle", e()],
  ["idle", {}, complete, "idle", e()],
  ["idle", {}, { type: "bridge_down" }, "idle", e("distrust_bridge"), { bridgeJoined: false, bridgeDown: true }],
  ["idle", {}, { type: "auth_failed", reason: "revoked" }, "stopped", stopEffects, { stopReason: "revoked" }],
  ["idle", {}, { type: "stop" }, "stopped", stopEffects, { stopReason: "closed" }],
  ["idle", {}, serverOff, "idle", e(), { server: offline }],
  // catching_up
  ["catching_up", {}, { type: "start" }, "catching_up", e()],
  ["catching_up", {}, { type: "caught_up" }, "joining", e("connect_bridge")],
  ["catching_up", { bridgeJoined: true }, { type: "caught_up" }, "live", e("trust_bridge")],
  ["catching_up", { bridgeDown: true }, { type: "caught_up" }, "polling", e("start_poll")],
  // A catch-up that works does not reset the backoff: only going live or a poll that answered does.
  [
    "catching_up",
    { bridgeDown: true, failures: 3 },
    { type: "caught_up" },
    "polling",
    e("start_poll"),
    { failures: 3 },
  ],
  ["catching_up", { failures: 3 }, { type: "caught_up" }, "joining", e("connect_bridge"), { failures: 3 }],
  [
    "catching_up",
    { bridgeJoined: true, failures: 3 },
    { type: "caught_up" },
    "live",
    e("trust_bridge"),
    { failures: 0 },
  ],
  ["catching_up", { failures: 3 }, { type: "polled" }, "catching_up", e(), { failures: 3 }],
  [
    "catching_up",
    { failures: 2 },
    { type: "http_failed" },
    "offline",
    e("stop_poll", "schedule_retry", "connect_bridge"),
    { failures: 3 },
  ],
  ["catching_up", {}, { type: "retry_due" }, "catching_up", e()],
  [
    "catching_up",
    {},
    { type: "cursor_expired" },
    "catching_up",
    e("stop_poll", "reset_cursor", "reload_snapshots", "catch_up"),
  ],
  ["catching_up", {}, complete, "catching_up", e(), { bridgeJoined: true }],
  // An event stored while the page in flight was read, broadcast before the join, is in neither: read again.
  ["catching_up", { bridgeDown: true }, gap, "catching_up", e("catch_up"), { bridgeJoined: true, bridgeDown: false }],
  [
    "catching_up",
    { bridgeJoined: true },
    { type: "bridge_down" },
    "catching_up",
    e("distrust_bridge"),
    { bridgeJoined: false, bridgeDown: true },
  ],
  [
    "catching_up",
    {},
    { type: "auth_failed", reason: "unauthorized" },
    "stopped",
    stopEffects,
    { stopReason: "unauthorized" },
  ],
  ["catching_up", {}, { type: "stop" }, "stopped", stopEffects],
  ["catching_up", { bridgeJoined: true }, serverOff, "catching_up", e(), { server: offline }],
  ["catching_up", {}, completeOff, "catching_up", e(), { bridgeJoined: true, server: { online: false } }],
  // Caught up with a bridge whose server is offline: nothing will be pushed, so HTTP polls instead of going live.
  ["catching_up", { bridgeJoined: true, server: offline }, { type: "caught_up" }, "polling", e("start_poll")],
  ["catching_up", { bridgeJoined: true, server: online }, { type: "caught_up" }, "live", e("trust_bridge")],
  // joining
  ["joining", {}, { type: "start" }, "joining", e()],
  ["joining", {}, { type: "caught_up" }, "joining", e()],
  ["joining", {}, { type: "http_failed" }, "joining", e()],
  ["joining", {}, { type: "polled" }, "joining", e()],
  ["joining", {}, { type: "retry_due" }, "joining", e()],
  ["joining", {}, { type: "cursor_expired" }, "joining", e()],
  ["joining", { failures: 2 }, complete, "live", e("trust_bridge"), { bridgeJoined: true, failures: 0 }],
  ["joining", {}, gap, "catching_up", e("catch_up"), { bridgeJoined: true }],
  ["joining", {}, { type: "bridge_down" }, "polling", e("distrust_bridge", "start_poll"), { bridgeDown: true }],
  ["joining", {}, { type: "auth_failed", reason: "revoked" }, "stopped", stopEffects],
  ["joining", {}, { type: "stop" }, "stopped", stopEffects],
  ["joining", {}, serverOff, "joining", e(), { server: offline }],
  ["joining", {}, completeOff, "polling", e("start_poll"), { bridgeJoined: true, server: { online: false } }],
  [
    "joining",
    {},
    { type: "bridge_joined", replay: "complete", serverOnline: true },
    "live",
    e("trust_bridge"),
    { server: { online: true } },
  ],
  // live
  ["live", { bridgeJoined: true }, { type: "start" }, "live", e()],
  ["live", { bridgeJoined: true }, { type: "caught_up" }, "live", e()],
  ["live", { bridgeJoined: true }, { type: "http_failed" }, "live", e()],
  ["live", { bridgeJoined: true }, { type: "polled" }, "live", e()],
  ["live", { bridgeJoined: true }, { type: "retry_due" }, "live", e()],
  ["live", { bridgeJoined: true }, { type: "cursor_expired" }, "live", e()],
  ["live", { bridgeJoined: true }, complete, "live", e("distrust_bridge", "trust_bridge")],
  ["live", { bridgeJoined: true }, gap, "catching_up", e("distrust_bridge", "catch_up")],
  [
    "live",
    { bridgeJoined: true },
    { type: "bridge_down" },
    "polling",
    e("distrust_bridge", "start_poll"),
    { bridgeJoined: false, bridgeDown: true },
  ],
  ["live", {}, { type: "auth_failed", reason: "revoked" }, "stopped", stopEffects, { stopReason: "revoked" }],
  ["live", {}, { type: "stop" }, "stopped", stopEffects],
  // The server's link went down: not live any more (nothing reaches the app over the bridge); HTTP polls.
  [
    "live",
    { bridgeJoined: true },
    serverOff,
    "polling",
    e("distrust_bridge", "start_poll"),
    { bridgeJoined: true, server: offline },
  ],
  ["live", { bridgeJoined: true }, serverOn, "live", e(), { server: online }],
  [
    "live",
    { bridgeJoined: true },
    gapOff,
    "polling",
    e("distrust_bridge", "start_poll"),
    { bridgeJoined: true, server: { online: false } },
  ],
  // polling
  ["polling", { bridgeDown: true }, { type: "start" }, "polling", e()],
  ["polling", { bridgeDown: true }, { type: "caught_up" }, "polling", e()],
  [
    "polling",
    { bridgeDown: true },
    { type: "http_failed" },
    "offline",
    e("stop_poll", "schedule_retry", "connect_bridge"),
    { failures: 1 },
  ],
  ["polling", { bridgeDown: true, failures: 3 }, { type: "polled" }, "polling", e(), { failures: 0 }],
  ["polling", { bridgeDown: true }, { type: "retry_due" }, "polling", e()],
  [
    "polling",
    { bridgeDown: true },
    { type: "cursor_expired" },
    "catching_up",
    e("stop_poll", "reset_cursor", "reload_snapshots", "catch_up"),
  ],
  [
    "polling",
    { bridgeDown: true },
    complete,
    "live",
    e("stop_poll", "trust_bridge"),
    { bridgeJoined: true, bridgeDown: false },
  ],
  [
    "polling",
    { bridgeDown: true },
    gap,
    "catching_up",
    e("stop_poll", "catch_up"),
    { bridgeJoined: true, bridgeDown: false },
  ],
  ["polling", { bridgeDown: true }, { type: "bridge_down" }, "polling", e()],
  ["polling", {}, { type: "auth_failed", reason: "unauthorized" }, "stopped", stopEffects],
  ["polling", {}, { type: "stop" }, "stopped", stopEffects],
  // Back online while joined: read what was stored meanwhile over HTTP, then trust the pushes again.
  [
    "polling",
    { bridgeJoined: true, server: offline },
    serverOn,
    "catching_up",
    e("stop_poll", "catch_up"),
    { server: online },
  ],
  ["polling", { bridgeDown: true }, serverOn, "polling", e(), { server: online }],
  ["polling", { bridgeJoined: true, server: online }, serverOff, "polling", e(), { server: offline }],
  [
    "polling",
    { bridgeDown: true },
    completeOff,
    "polling",
    e(),
    { bridgeJoined: true, bridgeDown: false, server: { online: false } },
  ],
  // A bridge that goes down forgets the join and what it said about the server.
  [
    "polling",
    { bridgeJoined: true, server: offline },
    { type: "bridge_down" },
    "polling",
    e(),
    { bridgeJoined: false, bridgeDown: true, server: undefined },
  ],
  // offline
  ["offline", { failures: 1 }, { type: "start" }, "offline", e()],
  ["offline", { failures: 1 }, { type: "caught_up" }, "offline", e()],
  ["offline", { failures: 1 }, { type: "http_failed" }, "offline", e()],
  ["offline", { failures: 1 }, { type: "polled" }, "offline", e(), { failures: 1 }],
  ["offline", { failures: 1 }, { type: "retry_due" }, "catching_up", e("reload_snapshots", "catch_up")],
  ["offline", { failures: 1 }, { type: "cursor_expired" }, "offline", e()],
  [
    "offline",
    { failures: 1 },
    complete,
    "live",
    e("cancel_retry", "reload_snapshots", "trust_bridge"),
    { bridgeJoined: true },
  ],
  [
    "offline",
    { failures: 1 },
    gap,
    "catching_up",
    e("cancel_retry", "reload_snapshots", "catch_up"),
    { bridgeJoined: true },
  ],
  [
    "offline",
    { failures: 1, bridgeJoined: true },
    { type: "bridge_down" },
    "offline",
    e("distrust_bridge"),
    { bridgeJoined: false, bridgeDown: true },
  ],
  ["offline", {}, { type: "auth_failed", reason: "revoked" }, "stopped", stopEffects],
  ["offline", {}, { type: "stop" }, "stopped", stopEffects],
  [
    "offline",
    { failures: 1, bridgeJoined: true, server: offline },
    serverOn,
    "catching_up",
    e("cancel_retry", "reload_snapshots", "catch_up"),
    { server: online },
  ],
  ["offline", { failures: 1 }, serverOn, "offline", e(), { server: online }],
  [
    "offline",
    { failures: 1 },
    completeOff,
    "offline",
    e(),
    { bridgeJoined: true, server: { online: false }, failures: 1 },
  ],
  // stopped: final
  ["stopped", { stopReason: "revoked" }, serverOn, "stopped", e(), { stopReason: "revoked" }],
  ...(
    ["start", "caught_up", "http_failed", "polled", "retry_due", "cursor_expired", "bridge_down", "stop"] as const
  ).map((type): Row => [
    "stopped",
    { stopReason: "revoked" },
    { type } as MachineInput,
    "stopped",
    e(),
    { stopReason: "revoked" },
  ]),
  ["stopped", { stopReason: "revoked" }, complete, "stopped", e()],
  [
    "stopped",
    { stopReason: "revoked" },
    { type: "auth_failed", reason: "unauthorized" },
    "stopped",
    e(),
    { stopReason: "revoked" },
  ],
];

describe("connection machine", () => {
  it.each(rows)("%s + %j → %s", (state, context, input, next, effects, patch) => {
    const result = transition(at(state, context), input);
    expect(result.state).toBe(next);
    expect(result.effects.map((effect) => effect.type)).toEqual(effects);
    if (patch) expect(result.context).toMatchObject(patch);
  });

  it("has a row for every (state, input) pair of the table", () => {
    const covered = new Set(rows.map(([state, , input]) => `${state}/${input.type}`));
    const cells = Object.entries(transitions).flatMap(([state, row]) =>
      Object.keys(row).map((input) => `${state}/${input}`),
    );
    expect(cells.filter((cell) => !covered.has(cell))).toEqual([]);
  });

  it("backs off by the failure count and resets it once live", () => {
    let snapshot = transition(at("catching_up", { failures: 4 }), { type: "http_failed" });
    expect(snapshot.effects).toContainEqual({ type: "schedule_retry", attempt: 4 });
    snapshot = transition(at("catching_up", { failures: 5, bridgeJoined: true }), { type: "caught_up" });
    expect(snapshot.context.failures).toBe(0);
  });

  it("a poll that always fails backs off further each round, though the catch-up between works", () => {
    let snapshot: ReturnType<typeof transition> = { ...at("polling", { bridgeDown: true }), effects: [] };
    const attempts: number[] = [];
    for (let round = 0; round < 4; round++) {
      snapshot = transition(snapshot, { type: "http_failed" });
      for (const effect of snapshot.effects) if (effect.type === "schedule_retry") attempts.push(effect.attempt);
      snapshot = transition(snapshot, { type: "retry_due" });
      snapshot = transition(snapshot, { type: "caught_up" });
      expect(snapshot.state).toBe("polling");
    }
    expect(attempts).toEqual([0, 1, 2, 3]);
  });

  it("offline forgets a join whose socket went down: back from retry it polls, never says live on a dead socket", () => {
    let snapshot = transition(at("offline", { failures: 1, bridgeJoined: true }), { type: "bridge_down" });
    snapshot = transition(snapshot, { type: "retry_due" });
    snapshot = transition(snapshot, { type: "caught_up" });
    expect(snapshot.state).toBe("polling");
    expect(snapshot.effects.map((effect) => effect.type)).toEqual(["start_poll"]);
  });

  it("folds states into the five statuses an app sees", () => {
    expect(statusOf(initialSnapshot)).toEqual({ state: "catching_up" });
    expect(statusOf(at("joining"))).toEqual({ state: "catching_up" });
    expect(statusOf(at("polling"))).toEqual({ state: "polling" });
    expect(statusOf(at("stopped", { stopReason: "revoked" }))).toEqual({ state: "stopped", reason: "revoked" });
  });

  it("carries what the bridge said about the server, and never says live with the server offline", () => {
    expect(statusOf(at("polling", { bridgeJoined: true, server: offline }))).toEqual({
      state: "polling",
      server: offline,
    });
    expect(statusOf(at("live", { bridgeJoined: true, server: online }))).toEqual({ state: "live", server: online });
    // Every way into live from every other state: none of them with the server known offline (so live with the
    // server offline is never reached, and live's own rows need not be checked from there).
    const contexts: Partial<MachineContext>[] = [
      { server: offline, bridgeJoined: true },
      { server: offline },
      { bridgeDown: true, server: offline },
    ];
    const inputs: MachineInput[] = [
      complete,
      gap,
      completeOff,
      gapOff,
      serverOff,
      { type: "caught_up" },
      { type: "polled" },
      { type: "retry_due" },
    ];
    for (const state of (Object.keys(transitions) as MachineState[]).filter((state) => state !== "live"))
      for (const context of contexts)
        for (const input of inputs) {
          const result = transition(at(state, context), input);
          if (result.state === "live")
            expect(result.context.server?.online, `${state} + ${input.type}`).not.toBe(false);
        }
  });
});
