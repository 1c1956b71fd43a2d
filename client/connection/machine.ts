// The connection state machine, pure: a state, an input, the next state and the effects to run. Every state
// names what it does with every input (the table is a total mapped type, so adding a state or an input does not
// compile until each cell is decided). The driver (connection/driver.ts) runs the effects and feeds inputs back.
//
// Where events come from in each state:
//   catching_up  HTTP reads from the cursor until has_more is false; bridge pushes are held back.
//   joining      the bridge channel join is in flight; pushes are held back until the reply says replay complete.
//   live         the bridge is trusted: every push goes straight through (deduplicated by event id).
//   polling      the bridge is down, or says the server's link to it is down (nothing would be pushed); HTTP
//                long-polls. Phoenix keeps reconnecting the socket in the background.
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
  /**
   * What the joined bridge last said about the server's link to it (join reply `server_online`, `server_status`
   * pushes); undefined while not said (an older bridge) or not known (the bridge is down).
   */
  server?: ServerLink;
}

/** The server's link to the bridge, as the bridge reports it; `since` is when it last changed (ISO 8601). */
export interface ServerLink {
  online: boolean;
  since?: string;
}

export type MachineInput =
  | { type: "start" }
  | { type: "caught_up" }
  | { type: "http_failed" }
  /** A long-poll answered (events or an empty window): HTTP works again, the backoff starts over. */
  | { type: "polled" }
  | { type: "retry_due" }
  | { type: "cursor_expired" }
  | { type: "bridge_joined"; replay: "complete" | "gap"; serverOnline?: boolean }
  | { type: "bridge_down" }
  /** The bridge pushed `server_status`: the server's link went up or down. */
  | { type: "server_status"; online: boolean; since?: string }
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

export const initialSnapshot: Snapshot = {
  state: "idle",
  context: { bridgeJoined: false, bridgeDown: false, failures: 0 },
};

const go =
  (state: MachineState, effects: Effect[] = [], patch: Partial<MachineContext> = {}) =>
  (context: MachineContext): Transition => ({ state, context: { ...context, ...patch }, effects });

/** An input that means nothing in this state: stay, do nothing. */
const stay = (state: MachineState) => go(state);

const stopWith = (reason: StopReason) =>
  go("stopped", [{ type: "stop_poll" }, { type: "cancel_retry" }, { type: "close" }], { stopReason: reason });
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
  if (context.bridgeJoined && !serverOff(context))
    return go("live", [{ type: "trust_bridge" }], { failures: 0 })(context);
  // Joined, but the bridge has no link to the server: nothing will be pushed, so HTTP polls.
  if (context.bridgeDown || context.bridgeJoined) return go("polling", [{ type: "start_poll" }])(context);
  return go("joining", [{ type: "connect_bridge" }])(context);
};

/**
 * HTTP failed: retry with backoff. The bridge is connected too (a no-op when it is already): its join reply says
 * whether the server is what is missing (`server_online`), so an app that starts while its server is down reads
 * "Server offline", not a bare "Offline".
 */
const httpFailed: Handler<"http_failed"> = (context) =>
  go(
    "offline",
    [{ type: "stop_poll" }, { type: "schedule_retry", attempt: context.failures }, { type: "connect_bridge" }],
    {
      failures: context.failures + 1,
    },
  )(context);

/** 410: the cursor points into a pruned or replaced log. Start over from the head, with fresh snapshots. */
const expired = go("catching_up", [
  { type: "stop_poll" },
  { type: "reset_cursor" },
  { type: "reload_snapshots" },
  { type: "catch_up" },
]);

/** The bridge says the server's link to it is down: its pushes cannot carry anything now. */
const serverOff = (context: MachineContext): boolean => context.server?.online === false;

/** The server's link as a join reply states it (undefined: an older bridge that does not say). */
const linkOf = (input: { serverOnline?: boolean }): ServerLink | undefined =>
  input.serverOnline === undefined ? undefined : { online: input.serverOnline };

/** What an acknowledged join tells the machine: the channel is joined, the bridge is up, and the server's link. */
const joinNoted = (input: { serverOnline?: boolean }): Partial<MachineContext> => ({
  bridgeJoined: true,
  bridgeDown: false,
  server: linkOf(input),
});

/** With the bridge down nothing is known of the server's link either. */
const bridgeDown = (state: MachineState): Handler<"bridge_down"> =>
  go(state, [{ type: "distrust_bridge" }], { bridgeJoined: false, bridgeDown: true, server: undefined });

/**
 * A join reply while HTTP was not running: complete → live; gap → fill it over HTTP first. A join that says the
 * server is offline is not live: `offServer` says where it goes instead (the bridge has nothing to push).
 */
const joinedFrom =
  (extra: Effect[], offServer: (context: MachineContext) => Transition): Handler<"bridge_joined"> =>
  (context, input) => {
    const joined = joinNoted(input);
    if (input.serverOnline === false) return offServer({ ...context, ...joined });
    return input.replay === "complete"
      ? go("live", [...extra, { type: "trust_bridge" }], { ...joined, failures: 0 })(context)
      : go("catching_up", [...extra, { type: "catch_up" }], joined)(context);
  };

/** A `server_status` push that changes nothing but what is known. */
const noteServerIn =
  (state: MachineState): Handler<"server_status"> =>
  (context, input) =>
    go(state, [], { server: { online: input.online, ...(input.since === undefined ? {} : { since: input.since }) } })(
      context,
    );

/**
 * The server's link came back while the bridge is joined: what it stored meanwhile reaches the bridge again, but
 * the app reads it over HTTP before trusting the pushes (as for a `gap` join), then goes live.
 */
const serverBack =
  (state: MachineState, extra: Effect[]): Handler<"server_status"> =>
  (context, input) => {
    const noted = noteServerIn(state)(context, input);
    if (!input.online || !context.bridgeJoined) return noted;
    return { ...noted, state: "catching_up", effects: [...extra, { type: "catch_up" }] };
  };

export const transitions: { [S in MachineState]: Row } = {
  idle: {
    start: go("catching_up", [{ type: "reload_snapshots" }, { type: "catch_up" }]),
    caught_up: stay("idle"),
    http_failed: stay("idle"),
    polled: stay("idle"),
    retry_due: stay("idle"),
    cursor_expired: stay("idle"),
    // A join acknowledged before start: a relayed call connected the bridge while the client was still reading its
    // saved cursor or loading its crypto. It is remembered, and trusted at caught_up (the start's catch-up begins
    // after it, so it covers all the join did not replay). Dropped, the machine would wait in joining for a join
    // that already happened: connect_bridge does nothing on a connected socket.
    bridge_joined: (context, input) => go("idle", [], joinNoted(input))(context),
    bridge_down: bridgeDown("idle"),
    server_status: noteServerIn("idle"),
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
      go("catching_up", input.replay === "gap" ? [{ type: "catch_up" }] : [], joinNoted(input))(context),
    bridge_down: bridgeDown("catching_up"),
    // Where it goes once caught up follows from what is known then (afterCatchUp).
    server_status: noteServerIn("catching_up"),
    ...stopped("catching_up"),
  },
  joining: {
    start: stay("joining"),
    caught_up: stay("joining"),
    http_failed: stay("joining"),
    polled: stay("joining"),
    retry_due: stay("joining"),
    cursor_expired: stay("joining"),
    bridge_joined: joinedFrom([], go("polling", [{ type: "start_poll" }])),
    bridge_down: go("polling", [{ type: "distrust_bridge" }, { type: "start_poll" }], {
      bridgeJoined: false,
      bridgeDown: true,
      server: undefined,
    }),
    server_status: noteServerIn("joining"),
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
    bridge_joined: joinedFrom(
      [{ type: "distrust_bridge" }],
      go("polling", [{ type: "distrust_bridge" }, { type: "start_poll" }]),
    ),
    bridge_down: go("polling", [{ type: "distrust_bridge" }, { type: "start_poll" }], {
      bridgeJoined: false,
      bridgeDown: true,
      server: undefined,
    }),
    // The server's link went down: nothing more will be pushed. Not live any more; HTTP polls (it may still reach
    // the server directly). The channel stays joined.
    server_status: (context, input) =>
      input.online
        ? noteServerIn("live")(context, input)
        : {
            ...noteServerIn("polling")(context, input),
            effects: [{ type: "distrust_bridge" }, { type: "start_poll" }],
          },
    ...stopped("live"),
  },
  polling: {
    start: stay("polling"),
    caught_up: stay("polling"),
    http_failed: httpFailed,
    polled: go("polling", [], { failures: 0 }),
    retry_due: stay("polling"),
    cursor_expired: expired,
    bridge_joined: joinedFrom([{ type: "stop_poll" }], go("polling")),
    // Forgets a join (one whose server was offline) and what it said; the sequencer is already distrusted.
    bridge_down: go("polling", [], { bridgeJoined: false, bridgeDown: true, server: undefined }),
    server_status: serverBack("polling", [{ type: "stop_poll" }]),
    ...stopped("polling"),
  },
  offline: {
    start: stay("offline"),
    caught_up: stay("offline"),
    http_failed: stay("offline"),
    polled: stay("offline"),
    // Back from offline is a reconnect: snapshots are the authority again (notification rule 2, docs/client.md "The rules, numbered").
    retry_due: go("catching_up", [{ type: "reload_snapshots" }, { type: "catch_up" }]),
    cursor_expired: stay("offline"),
    // A join saying the server is offline changes nothing here: the retry is already scheduled.
    bridge_joined: joinedFrom([{ type: "cancel_retry" }, { type: "reload_snapshots" }], go("offline")),
    // The socket that joined is gone: forget the join, or the next caught_up would go live on a dead socket.
    bridge_down: bridgeDown("offline"),
    // Back from offline is a reconnect (snapshots again), as retry_due is.
    server_status: serverBack("offline", [{ type: "cancel_retry" }, { type: "reload_snapshots" }]),
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
    server_status: stay("stopped"),
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

/**
 * What the app sees: the machine's state folded into the five documented statuses, with `server` once the bridge has
 * said whether the server's link to it is up (absent while the bridge is down or does not say). `live` is only ever
 * shown with the server online or unknown: a bridge without its server pushes nothing.
 */
export type ConnectionStatus =
  | {
      state: "live" | "catching_up" | "polling" | "offline";
      server?: ServerLink;
      /**
       * `catching_up` only: a retry after HTTP failed, not answered yet. Nothing has answered since the client was
       * `offline`, so the badge still reads Offline (docs/client.md "The badge").
       */
      retrying?: true;
    }
  | { state: "stopped"; reason: StatusStopReason };

export function statusOf(snapshot: Snapshot): ConnectionStatus {
  const server = snapshot.context.server;
  const withServer = <S extends ConnectionStatus["state"]>(state: S) => ({
    state,
    ...(server ? { server: { ...server } } : {}),
  });
  // The machine's own catching_up (not joining): its catch-up is running; after a failure it is a retry.
  if (snapshot.state === "catching_up" && snapshot.context.failures > 0)
    return { ...withServer("catching_up"), retrying: true };
  switch (snapshot.state) {
    case "idle":
    case "joining":
      return withServer("catching_up");
    case "stopped":
      return {
        state: "stopped",
        reason: (snapshot.context.stopReason ?? "closed") === "closed" ? "closed" : "revoked",
      };
    default:
      return withServer(snapshot.state);
  }
}

/** Whether two statuses say the same (the driver publishes a status only when it changes). */
export function sameStatus(a: ConnectionStatus, b: ConnectionStatus): boolean {
  if (a.state !== b.state) return false;
  if (a.state === "stopped" || b.state === "stopped")
    return (a as { reason?: string }).reason === (b as { reason?: string }).reason;
  return a.server?.online === b.server?.online && a.server?.since === b.server?.since && a.retrying === b.retrying;
}
