// `server:<id>`: the server's own channel. It authenticates with the server's credential, tells the bridge its
// devices and codes, pushes its events (acked one by one so the server can advance its cursor) and answers the
// pairing requests the bridge forwards to it. A join for an id the bridge does not know registers it (trust on first
// use), within bounds: at most `maxServers` ids in all, and `serverRegistrationsPerAddress` new ids per address and
// window. Each registration is permanent (servers.json, rewritten synchronously) and owns a replay buffer.
import { randomUUID } from "node:crypto";
import {
  apiResultSchema,
  forgetPayloadSchema,
  grantsPayloadSchema,
  pairResultSchema,
  BRIDGE_FEATURES,
  serverJoinParamsSchema,
  type Frame,
  type PairResult,
  type ServerJoinParams,
} from "../../client/wire/frames.ts";
import { after, type Clock } from "../clock.ts";
import type { BridgeCore } from "../core.ts";
import type { ApiRelay } from "../relay/api-relay.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { ChannelEntry, Connection } from "../socket/connection.ts";
import type { AnswerDesk } from "../state/answer-desk.ts";
import type { ServerState } from "../state/registry.ts";
import { ServerLink } from "../state/server-link.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import { afterOfPush, eventOfPush, speaksAudiences, taggedGrants } from "./server-audience.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { refuse, type JoinAttempt, type JoinOutcome, type TopicHandler } from "./types.ts";

/** Pairing requests waiting for their server's answer, by request id. */
export class PendingPairs {
  private readonly waiting = new Map<
    string,
    { serverId: string; app: Connection; resolve: (result: PairResult) => void; cancelTimeout: () => void }
  >();

  /**
   * The wait for the server's answer runs on the bridge's clock. Answers given on another node's link reach the
   * waiter here through `answers`.
   */
  constructor(
    private readonly clock: Clock,
    answers: AnswerDesk,
  ) {
    answers.serve("pair_result", (_state, payload) => {
      const result = pairResultSchema.safeParse(payload);
      return result.success && this.settle(result.data.request_id, result.data);
    });
  }

  /**
   * Forwards `app`'s pairing attempt to the server's link through `deliver` (the shared state's way; the link on
   * this node by default); resolves with its answer (or an error when it goes away).
   */
  ask(
    state: ServerState,
    app: Connection,
    code: string,
    deviceName: string,
    deviceKey: string | undefined,
    timeoutMs: number,
    deliver: (payload: Record<string, unknown>) => boolean | Promise<boolean> = (payload) =>
      state.push("pair_request", payload),
  ): { result: Promise<PairResult>; cancel: () => void } {
    const requestId = randomUUID();
    const result = new Promise<PairResult>((resolve) => {
      const cancelTimeout = after(this.clock, timeoutMs, () =>
        this.settle(requestId, { request_id: requestId, status: "error", reason: "server_unavailable" }),
      );
      this.waiting.set(requestId, { serverId: state.id, app, resolve, cancelTimeout });
    });
    const unavailable = { request_id: requestId, status: "error", reason: "server_unavailable" } as const;
    const payload = {
      request_id: requestId,
      code,
      device_name: deviceName,
      ...(deviceKey === undefined ? {} : { device_key: deviceKey }),
    };
    void Promise.resolve(deliver(payload)).then((delivered) => delivered || this.settle(requestId, unavailable));
    return { result, cancel: () => this.forget(requestId) };
  }

  /**
   * Hands the server's answer to the waiting app; false when nobody can take it: the app left, the wait timed out,
   * or its socket is closing (its close frame came, ws has not finished the close yet, and a reply would be dropped).
   */
  settle(requestId: string, result: PairResult): boolean {
    const waiter = this.waiting.get(requestId);
    if (!waiter) return false;
    this.forget(requestId);
    if (!waiter.app.open) return false;
    waiter.resolve(result);
    return true;
  }

  /** Drops a wait and its timer (the app left, or its answer came). */
  private forget(requestId: string): void {
    const waiter = this.waiting.get(requestId);
    if (!waiter) return;
    waiter.cancelTimeout();
    this.waiting.delete(requestId);
  }

  /** The server's channel ended: every request it had is answered `server_unavailable`. */
  failAll(serverId: string): void {
    for (const [requestId, waiter] of this.waiting) {
      if (waiter.serverId === serverId)
        this.settle(requestId, { request_id: requestId, status: "error", reason: "server_unavailable" });
    }
  }
}

type ServerRefusal = "unauthorized" | "already_connected" | "registration_closed" | "rate_limited";

export function serverChannel(core: BridgeCore, pending: PendingPairs, relay: ApiRelay): TopicHandler {
  return {
    join(connection, frame, match): JoinAttempt {
      const serverId = match[1]!;
      // The router needs the entry now; the link's own exists once the join succeeds.
      let linked: ChannelEntry | undefined;
      let ended = false;
      const entry: ChannelEntry = {
        joinRef: frame.joinRef,
        handleIn: (pushed) => linked?.handleIn(pushed),
        terminate: (reason) => {
          ended = true;
          linked?.terminate(reason);
        },
      };
      const outcome = joinServer(
        core,
        connection,
        frame,
        serverId,
        () => ended,
        (state, params) => {
          const link = linkServer(core, pending, relay, connection, frame.joinRef, state, params);
          linked = link.entry;
          return link.resumeAfter;
        },
      );
      return { entry, outcome };
    },
  };
}

/**
 * The one server join, on either shared state: params, registration within bounds (trust on first use), credential,
 * the link's claim (one live link per server across nodes), the shared history's resume point, then the link.
 */
async function joinServer(
  core: BridgeCore,
  connection: Connection,
  frame: Frame,
  serverId: string,
  ended: () => boolean,
  link: (state: ServerState, params: ServerJoinParams) => string,
): Promise<JoinOutcome> {
  const refused = (reason: ServerRefusal, msg: string): JoinOutcome => {
    core.log.warn({ socket: connection.id, address: connection.address, server_id: serverId, reason }, msg);
    return refuse(reason);
  };
  const params = serverJoinParamsSchema.safeParse(frame.payload);
  if (!params.success) return refused("unauthorized", "server join with invalid params");
  const { servers } = core;
  const refusal = await servers.registerServer(serverId, sha256Hex(params.data.credential), connection.address);
  if (refusal) {
    core.metrics.serverRegistrationsRefused++;
    return refused(refusal, "server registration refused");
  }
  const auth = core.registry.authenticateServer(serverId, params.data.credential);
  if (!auth.ok)
    return refused(
      auth.reason,
      auth.reason === "already_connected"
        ? "server credential replayed while its channel is live"
        : "server join with a wrong credential",
    );
  const { state } = auth;
  if (!(await servers.claimLink(state))) return refused("already_connected", "server already linked on another node");
  if (ended() || connection.closed) {
    servers.releaseLink(state);
    return refuse("unauthorized");
  }
  // Another join of this server may have linked while this one waited: one live link per server.
  if (state.liveLink) return refuse("already_connected");
  return { status: "ok", response: { resume_after: link(state, params.data), features: BRIDGE_FEATURES } };
}

/**
 * Makes `connection` the server's link once it is authenticated and its link claimed: takes its grants, decides
 * where it resumes, tells the server's apps it is online, and gives the router the channel's entry.
 */
function linkServer(
  core: BridgeCore,
  pending: PendingPairs,
  relay: ApiRelay,
  connection: Connection,
  joinRef: string | null,
  state: ServerState,
  params: ServerJoinParams,
): { entry: ChannelEntry; resumeAfter: string } {
  const serverId = state.id;
  const audiences = speaksAudiences(params);
  const link = new ServerLink(serverId, connection, joinRef, core.clock.now(), audiences);
  state.link = link;
  // A link that goes silent (its packets dropped, no close) is down well before an app's socket would be.
  connection.idleLimitMs = core.config.serverLinkTimeoutMs;
  core.registry.applyGrants(state, taggedGrants(audiences, params.devices), params.codes);
  if (params.app_config) core.registry.setAppConfig(state, params.app_config);
  // What the history holds was routed as the previous link said: under another word on audiences it starts over.
  state.linked(audiences);
  const resumeAfter = core.replay.resume(state, params.epoch, params.cursor);
  core.servers.linkChanged(state, { online: true, since: link.since });
  core.log.info({ server_id: serverId, socket: connection.id, resume_after: resumeAfter }, "server joined");
  const entry = {
    joinRef,
    handleIn: (pushed: Frame) => handleServerPush(core, pending, relay, connection, state, pushed),
    terminate: () => {
      if (state.link !== link) return;
      state.link = undefined;
      pending.failAll(serverId);
      relay.serverGone(serverId);
      core.servers.releaseLink(state);
      core.servers.linkChanged(state, { online: false, since: core.clock.now() });
      core.log.info({ server_id: serverId, socket: connection.id }, "server left");
    },
  };
  return { entry, resumeAfter };
}

function handleServerPush(
  core: BridgeCore,
  pending: PendingPairs,
  apiRelay: ApiRelay,
  connection: Connection,
  state: ServerState,
  frame: Frame,
): void {
  const reply = (status: "ok" | "error", response: Record<string, unknown>) =>
    connection.send(replyFrame(frame, status, response));
  switch (frame.event) {
    case "session_event": {
      const event = eventOfPush(state.link?.audiences ?? false, frame.payload);
      if (!event) return reply("error", { reason: "invalid_event" });
      const after = afterOfPush(frame.payload);
      const deleted = deletedSession(event);
      const { arrival, kept } = core.replay.relay(state, event, after, deleted);
      if (arrival !== "duplicate" && deleted !== undefined)
        core.log.info({ server_id: state.id }, "deleted session dropped from the replay history");
      // A shared history that must hold the event before the ack gets it first (the server resends it otherwise).
      if (kept) return void kept.then(() => reply("ok", {}));
      return reply("ok", {});
    }
    case "forget": {
      const parsed = forgetPayloadSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_params" });
      // A deleted session's events leave the replay history: a device that joins later is never replayed them.
      core.replay.forget(state, parsed.data.event_ids);
      core.log.info(
        { server_id: state.id, events: parsed.data.event_ids.length },
        "deleted events dropped from the replay history",
      );
      return reply("ok", {});
    }
    case "grants": {
      const parsed = grantsPayloadSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_params" });
      const devices = taggedGrants(state.link?.audiences ?? false, parsed.data.devices);
      const closed = core.registry.applyGrants(state, devices, parsed.data.codes);
      core.metrics.revokedCloses += closed;
      if (closed > 0) core.log.info({ server_id: state.id, sockets: closed }, "revoked device sockets closed");
      return reply("ok", {});
    }
    case "pair_result": {
      const parsed = pairResultSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_params" });
      const result = parsed.data;
      if (result.status !== "ok") {
        pending.settle(result.request_id, result);
        return reply("ok", {});
      }
      // The app may wait here or on the node that forwarded the request (a cluster): its answer is that node's.
      return void core.servers.answer(state, "pair_result", result).then((taken) => {
        if (taken) reply("ok", {});
        else abandoned(core, state, result, reply);
      });
    }
    case "api_result":
    case "share_result":
      return takeAnswer(core, state, frame, reply);
    default:
      core.log.warn({ server_id: state.id, event: frame.event }, "unknown event on server topic");
      return reply("error", { reason: "unknown_event" });
  }
}

/**
 * The app left (or the wait timed out) while the server was redeeming: the device exists but nobody holds its token.
 * "abandoned" tells the server to revoke it.
 */
function abandoned(
  core: BridgeCore,
  state: ServerState,
  result: Extract<PairResult, { status: "ok" }>,
  reply: (status: "ok" | "error", response: Record<string, unknown>) => void,
): void {
  core.log.warn(
    {
      server_id: state.id,
      device_id: result.device_id,
    },
    "pair_result for a pairing nobody waits for",
  );
  reply("error", { reason: "abandoned" });
}

/**
 * The server's answer to a call an app relayed (api_result) or to a share link's part the bridge asked for
 * (share_result): handed to its waiter, here or on the node that asked (sharing/blob-asks.ts checks share_result
 * itself). The server sends them without a ref (fire and forget, one frame per call less both ways); one with a ref
 * is acknowledged like every other push.
 */
function takeAnswer(
  core: BridgeCore,
  state: ServerState,
  frame: Frame,
  reply: (status: "ok" | "error", response: Record<string, unknown>) => void,
): void {
  const answered = frame.ref === null ? () => undefined : reply;
  if (frame.event === "share_result") {
    void core.servers.answer(state, "share_result", isRecord(frame.payload) ? frame.payload : {});
    return answered("ok", {});
  }
  const parsed = apiResultSchema.safeParse(frame.payload);
  if (!parsed.success) {
    core.log.warn({ server_id: state.id, problem: parsed.error.issues[0]?.message }, "api_result not understood");
    return answered("error", { reason: "invalid_params" });
  }
  void core.servers.answer(state, "api_result", parsed.data);
  return answered("ok", {});
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The session a plain `session_deleted` names (only the plain form names its session to the bridge). */
function deletedSession(event: BufferedEvent): string | undefined {
  const plain = event.forms.find((form) => form.mode === "plain");
  if (!plain || !plain.json.includes('"session_deleted"')) return undefined;
  const parsed = JSON.parse(plain.json) as { event?: { type?: unknown; session_id?: unknown } };
  return parsed.event?.type === "session_deleted" && typeof parsed.event.session_id === "string"
    ? parsed.event.session_id
    : undefined;
}
