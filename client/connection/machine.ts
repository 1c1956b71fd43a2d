// The connection state machine, pure: a state, an input, the next state and the effects to run. Every state
// names what it does with every input (the table is a total mapped type, so adding a state or an input does not
// compile until each cell is decided). The driver (connection/driver.ts) runs the effects and feeds inputs back.
//
// Where events come from in each state:
//   catching_up  HTTP reads from the cursor until has_more is false; bridge pushes are held back.
//   joining      the bridge channel join is in flight; pushes are held back until the reply says replay complete.
//   live         the bridge is trusted: every push goes straight through (deduplicated by event id).
//   polling      the bridge is down; HTTP long-polls. Phoenix keeps reconnecting the socket in the background.
//   offline      HTTP failed too; a retry is scheduled with backoff.
//   stopped      for good (closed by the app, or the device token is no longer valid).

export type StopReason = "closed" | "revoked" | "unauthorized";

export type MachineState = "idle" | "catching_up" | "joining" | "live" | "polling" | "offline" | "stopped";

export interface MachineContext {
  /** The current bridge join was acknowledged (its replay, plus HTTP catch-up if it said gap, covers the cursor). */
  bridgeJoined: boolean;
  /** The bridge reported down since its last join: waiting for it would stall, so HTTP takes over. */
  bridgeDown: boolean;
  /** Consecutive HTTP failures, for backoff. */
  failures: number;
  stopReason?: StopReason;
}

export type MachineInput =
  | { type: "start" }
  | { type: "caught_up" }
  | { type: "http_failed" }
  /** A long-poll answered (events or an empty window): HTTP works again, the backoff starts over. */
  | { type: "polled" }
  | { type: "retry_due" }
  | { type: "cursor_expired" }
  | { type: "bridge_joined"; replay: "complete" | "gap" }
  | { type: "bridge_down" }
  | { type: "auth_failed"; reason: "revoked" | "unauthorized" }
  | { type: "stop" };

export type InputType = MachineInput["type"];

export type Effect =
  | { type: "catch_up" }
  | { type: "connect_bridge" }
  | { type: "trust_bridge" }
  | { type: "distrust_bridge" }
  | { type: "start_poll" }
  | { type: "stop_poll" }
  | { type: "schedule_retry"; attempt: number }
  | { type: "cancel_retry" }
  | { type: "reset_cursor" }
  | { type: "reload_snapshots" }
  | { type: "close" };

export interface Snapshot {
  state: MachineState;
  context: MachineContext;
}

export interface Transition extends Snapshot {
  effects: Effect[];
}

type Handler<I extends InputType> = (context: MachineContext, input: Extract<MachineInput, { type: I }>) => Transition;
type Row = { [I in InputType]: Handler<I> };

export const initialSnapshot: Snapshot = { state: "idle", context: { bridgeJoined: false, bridgeDown: false, failures: 0 } };

const go =
  (state: MachineState, effects: Effect[] = [], patch: Partial<MachineContext> = {}) =>
  (context: MachineContext): Transition => ({ state, context: { ...context, ...patch }, effects });

/** An input that means nothing in this state: stay, do nothing. */
const stay = (state: MachineState) => go(state);

const stopWith = (reason: StopReason) => go("stopped", [{ type: "stop_poll" }, { type: "cancel_retry" }, { type: "close" }], { stopReason: reason });
const stopped = (state: MachineState): Pick<Row, "stop" | "auth_failed"> => ({
  stop: state === "stopped" ? stay(state) : stopWith("closed"),
  auth_failed: state === "stopped" ? stay(state) : (context, input) => stopWith(input.reason)(context),
});

/**
 * HTTP reached the head of the log: trust an acknowledged bridge, poll around a down one, or join. The failure
 * count is kept unless the client goes live: a catch-up that works followed by a poll that always fails must
 * still back off (the count resets on going live or on a poll that answered).
 */
const afterCatchUp: Handler<"caught_up"> = (context) => {
  if (context.bridgeJoined) return go("live", [{ type: "trust_bridge" }], { failures: 0 })(context);
  if (context.bridgeDown) return go("polling", [{ type: "start_poll" }])(context);
  return go("joining", [{ type: "connect_bridge" }])(context);
};

const httpFailed: Handler<"http_failed"> = (context) =>
  go("offline", [{ type: "stop_poll" }, { type: "schedule_retry", attempt: context.failures }], { failures: context.failures + 1 })(context);

/** 410: the cursor points into a pruned or replaced log. Start over from the head, with fresh snapshots. */
const expired = go("catching_up", [{ type: "stop_poll" }, { type: "reset_cursor" }, { type: "reload_snapshots" }, { type: "catch_up" }]);

const bridgeDown = (state: MachineState): Handler<"bridge_down"> =>
  go(state, [{ type: "distrust_bridge" }], { bridgeJoined: false, bridgeDown: true });

/** A join reply while HTTP was not running: complete → live; gap → fill it over HTTP first. */
const joinedFrom = (extra: Effect[]): Handler<"bridge_joined"> => (context, input) =>
  input.replay === "complete"
    ? go("live", [...extra, { type: "trust_bridge" }], { bridgeJoined: true, bridgeDown: false, failures: 0 })(context)
    : go("catching_up", [...extra, { type: "catch_up" }], { bridgeJoined: true, bridgeDown: false })(context);

export const transitions: { [S in MachineState]: Row } = {
  idle: {
    start: go("catching_up", [{ type: "reload_snapshots" }, { type: "catch_up" }]),
    caught_up: stay("idle"),
    http_failed: stay("idle"),
    polled: stay("idle"),
    retry_due: stay("idle"),
    cursor_expired: stay("idle"),
    bridge_joined: stay("idle"),
    bridge_down: bridgeDown("idle"),
    ...stopped("idle"),
  },
  catching_up: {
    start: stay("catching_up"),
    caught_up: afterCatchUp,
    http_failed: httpFailed,
    polled: stay("catching_up"),
    retry_due: stay("catching_up"),
    cursor_expired: expired,
    // complete: HTTP is already reading to the head; the join is trusted once it gets there. gap: the replay
    // missed what was stored while the page in flight was read, and no push of it comes: read once more after
    // the join (the new catch-up replaces the running one and starts from the cursor it reached).
    bridge_joined: (context, input) =>
      go("catching_up", input.replay === "gap" ? [{ type: "catch_up" }] : [], { bridgeJoined: true, bridgeDown: false })(context),
    bridge_down: bridgeDown("catching_up"),
    ...stopped("catching_up"),
  },
  joining: {
    start: stay("joining"),
    caught_up: stay("joining"),
    http_failed: stay("joining"),
    polled: stay("joining"),
    retry_due: stay("joining"),
    cursor_expired: stay("joining"),
    bridge_joined: joinedFrom([]),
    bridge_down: go("polling", [{ type: "distrust_bridge" }, { type: "start_poll" }], { bridgeJoined: false, bridgeDown: true }),
    ...stopped("joining"),
  },
  live: {
    start: stay("live"),
    caught_up: stay("live"),
    http_failed: stay("live"),
    polled: stay("live"),
    retry_due: stay("live"),
    cursor_expired: stay("live"),
    // A rejoin we did not see drop (phx_error then rejoin): start over from what the reply says.
    bridge_joined: joinedFrom([{ type: "distrust_bridge" }]),
    bridge_down: go("polling", [{ type: "distrust_bridge" }, { type: "start_poll" }], { bridgeJoined: false, bridgeDown: true }),
    ...stopped("live"),
  },
  polling: {
    start: stay("polling"),
    caught_up: stay("polling"),
    http_failed: httpFailed,
    polled: go("polling", [], { failures: 0 }),
    retry_due: stay("polling"),
    cursor_expired: expired,
    bridge_joined: joinedFrom([{ type: "stop_poll" }]),
    bridge_down: stay("polling"),
    ...stopped("polling"),
  },
  offline: {
    start: stay("offline"),
    caught_up: stay("offline"),
    http_failed: stay("offline"),
    polled: stay("offline"),
    // Back from offline is a reconnect: snapshots are the authority again (SPEC notification rule 2).
    retry_due: go("catching_up", [{ type: "reload_snapshots" }, { type: "catch_up" }]),
    cursor_expired: stay("offline"),
    bridge_joined: joinedFrom([{ type: "cancel_retry" }, { type: "reload_snapshots" }]),
    // The socket that joined is gone: forget the join, or the next caught_up would go live on a dead socket.
    bridge_down: bridgeDown("offline"),
    ...stopped("offline"),
  },
  stopped: {
    start: stay("stopped"),
    caught_up: stay("stopped"),
    http_failed: stay("stopped"),
    polled: stay("stopped"),
    retry_due: stay("stopped"),
    cursor_expired: stay("stopped"),
    bridge_joined: stay("stopped"),
    bridge_down: stay("stopped"),
    ...stopped("stopped"),
  },
};

export function transition(snapshot: Snapshot, input: MachineInput): Transition {
  const handler = transitions[snapshot.state][input.type] as Handler<typeof input.type>;
  return handler(snapshot.context, input as never);
}

/**
 * Why a client stopped, as the app sees it: `closed` by the app, or `revoked`: the device token is no longer
 * accepted (bridge close 4001, a refused join, HTTP 401). Both refusals mean the same thing to an app, pair again,
 * and the library has already forgotten the credentials.
 */
export type StatusStopReason = "closed" | "revoked";

/** What the app sees: the machine's state folded into the five documented statuses. */
export type ConnectionStatus =
  | { state: "live" | "catching_up" | "polling" | "offline" }
  | { state: "stopped"; reason: StatusStopReason };

export function statusOf(snapshot: Snapshot): ConnectionStatus {
  switch (snapshot.state) {
    case "idle":
    case "joining":
      return { state: "catching_up" };
    case "stopped":
      return { state: "stopped", reason: (snapshot.context.stopReason ?? "closed") === "closed" ? "closed" : "revoked" };
    default:
      return { state: snapshot.state };
  }
}
