// `server:<id>`: the server's own channel. It authenticates with the server's credential, tells the bridge its
// devices and codes, pushes its events (acked one by one so the server can advance its cursor) and answers the
// pairing requests the bridge forwards to it. A join for an id the bridge does not know registers it (trust on first
// use), within bounds: at most `maxServers` ids in all, and `serverRegistrationsPerAddress` new ids per address and
// window. Each registration is permanent (servers.json, rewritten synchronously) and owns a replay buffer.
import { randomUUID } from "node:crypto";
import {
  apiResultSchema,
  grantsPayloadSchema,
  pairResultSchema,
  serverJoinParamsSchema,
  serverSessionEventSchema,
  type Frame,
  type PairResult,
  type ServerJoinParams,
} from "../../client/wire/frames.ts";
import { clusterServerJoin } from "../cluster/server-join.ts";
import { after, type Clock } from "../clock.ts";
import type { BridgeCore } from "../core.ts";
import type { ApiRelay } from "../relay/api-relay.ts";
import { AddressRateLimiter } from "../rate-limiter.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { ChannelEntry, Connection } from "../socket/connection.ts";
import { deliverEvent } from "../fanout/deliver.ts";
import type { ServerState } from "../state/registry.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import { inertEntry, refuse, type JoinAttempt, type TopicHandler } from "./types.ts";

/** Pairing requests waiting for their server's answer, by request id. */
export class PendingPairs {
  private readonly waiting = new Map<string, { serverId: string; app: Connection; resolve: (result: PairResult) => void; cancelTimeout: () => void }>();

  /** The wait for the server's answer runs on the bridge's clock. */
  constructor(private readonly clock: Clock) {}

  /**
   * Forwards `app`'s pairing attempt to the server's channel; resolves with its answer (or an error when it goes
   * away).
   */
  ask(state: ServerState, app: Connection, code: string, deviceName: string, deviceKey: string | undefined, timeoutMs: number, deliver: (payload: Record<string, unknown>) => boolean | Promise<boolean> = sendToLink(state)): { result: Promise<PairResult>; cancel: () => void } {
    const requestId = randomUUID();
    const result = new Promise<PairResult>((resolve) => {
      const cancelTimeout = after(this.clock, timeoutMs, () => this.settle(requestId, { request_id: requestId, status: "error", reason: "server_unavailable" }));
      this.waiting.set(requestId, { serverId: state.id, app, resolve, cancelTimeout });
    });
    const unavailable = { request_id: requestId, status: "error", reason: "server_unavailable" } as const;
    const payload = { request_id: requestId, code, device_name: deviceName, ...(deviceKey === undefined ? {} : { device_key: deviceKey }) };
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
      if (waiter.serverId === serverId) this.settle(requestId, { request_id: requestId, status: "error", reason: "server_unavailable" });
    }
  }
}

/** How a pairing request reaches the server's link on this bridge. */
function sendToLink(state: ServerState) {
  return (payload: Record<string, unknown>): boolean => {
    const link = state.link;
    if (!link) return false;
    link.connection.send({ joinRef: link.joinRef, ref: null, topic: `server:${state.id}`, event: "pair_request", payload });
    return true;
  };
}

export function serverChannel(core: BridgeCore, pending: PendingPairs, relay: ApiRelay): TopicHandler {
  const { config } = core;
  // The cap bounds registrations overall; this bounds one address's share of it.
  const registrations = new AddressRateLimiter(core.clock, config.serverRegistrationsPerAddress, Number.POSITIVE_INFINITY, config.serverRegistrationWindowMs);

  /** Why a new server id may not be registered now, if it may not; a registration allowed is counted. */
  const registrationRefusal = (connection: Connection): "registration_closed" | "rate_limited" | undefined => {
    if (core.registry.registeredServers >= config.maxServers) return "registration_closed";
    if (registrations.limited(connection.address)) return "rate_limited";
    registrations.record(connection.address);
    return undefined;
  };

  return {
    join(connection, frame, match): JoinAttempt {
      const serverId = match[1]!;
      const params = serverJoinParamsSchema.safeParse(frame.payload);
      if (!params.success) {
        core.log.log("warn", "server join with invalid params", { socket: connection.id, address: connection.address, topic: frame.topic });
        return { entry: inertEntry(frame.joinRef), outcome: refuse("unauthorized") };
      }
      if (core.cluster) return clusterServerJoin(core, core.cluster, connection, frame, serverId, params.data, (state) => linkServer(core, pending, relay, connection, frame.joinRef, state, params.data));
      const refusal = core.registry.has(serverId) ? undefined : registrationRefusal(connection);
      if (refusal) {
        core.metrics.serverRegistrationsRefused++;
        core.log.log("warn", "server registration refused", { socket: connection.id, address: connection.address, server_id: serverId, reason: refusal });
        return { entry: inertEntry(frame.joinRef), outcome: refuse(refusal) };
      }
      const auth = core.registry.authenticateServer(serverId, params.data.credential);
      if (!auth.ok) {
        const msg = auth.reason === "already_connected" ? "server credential replayed while its channel is live" : "server join with a wrong credential";
        core.log.log("warn", msg, { socket: connection.id, address: connection.address, server_id: serverId });
        return { entry: inertEntry(frame.joinRef), outcome: refuse(auth.reason) };
      }
      const linked = linkServer(core, pending, relay, connection, frame.joinRef, auth.state, params.data);
      return { entry: linked.entry, outcome: { status: "ok", response: { resume_after: linked.resumeAfter } } };
    },
  };
}

/**
 * Makes `connection` the server's link once it is authenticated (and, in a cluster, its link claimed): takes its
 * grants, decides where it resumes, and gives the router the channel's entry.
 */
export function linkServer(core: BridgeCore, pending: PendingPairs, relay: ApiRelay, connection: Connection, joinRef: string | null, state: ServerState, params: ServerJoinParams): { entry: ChannelEntry; resumeAfter: string } {
  const serverId = state.id;
  state.link = { connection, joinRef };
  core.registry.applyGrants(state, params.devices, params.codes);
  const continues = core.registry.continues(state, params.epoch, params.cursor);
  const storeChanged = state.epoch !== undefined && state.epoch !== params.epoch;
  const resumeAfter = core.registry.resume(state, params.epoch, params.cursor);
  // Every node's view of the history starts over with it (ordered before this link's first event).
  if (core.cluster && !continues) void core.cluster.resetHistory(state, params.epoch, resumeAfter, storeChanged);
  core.log.log("info", "server joined", { server_id: serverId, socket: connection.id, resume_after: resumeAfter });
  const entry = {
    joinRef,
    handleIn: (pushed: Frame) => handleServerPush(core, pending, relay, connection, state, pushed),
    terminate: () => {
      if (state.link?.connection !== connection) return;
      state.link = undefined;
      pending.failAll(serverId);
      relay.serverGone(serverId);
      core.cluster?.unlinked(state);
      core.log.log("info", "server left", { server_id: serverId, socket: connection.id });
    },
  };
  return { entry, resumeAfter };
}

function handleServerPush(core: BridgeCore, pending: PendingPairs, apiRelay: ApiRelay, connection: Connection, state: ServerState, frame: Frame): void {
  const reply = (status: "ok" | "error", response: Record<string, unknown>) => connection.send(replyFrame(frame, status, response));
  switch (frame.event) {
    case "session_event": {
      const parsed = serverSessionEventSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_event" });
      const { event: plain, sealed, after } = parsed.data;
      const event = bufferedForms((plain ?? sealed)!.event_id, frame.payload);
      const prev = state.lastId;
      const arrival = deliverEvent(core, state, event, after);
      // A cluster node acks once the event is in the shared history, so the server resends it if this node dies first.
      if (core.cluster && arrival === "late") return void core.cluster.lateArrival(state).then(() => reply("ok", {}));
      if (core.cluster && arrival !== "duplicate" && arrival !== "late") {
        return void core.cluster.append(state, event, arrival === "after_hole" ? after! : (prev ?? event.id)).then(() => reply("ok", {}));
      }
      return reply("ok", {});
    }
    case "grants": {
      const parsed = grantsPayloadSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_params" });
      const closed = core.registry.applyGrants(state, parsed.data.devices, parsed.data.codes);
      core.metrics.revokedCloses += closed;
      if (closed > 0) core.log.log("info", "revoked device sockets closed", { server_id: state.id, sockets: closed });
      return reply("ok", {});
    }
    case "pair_result": {
      const parsed = pairResultSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_params" });
      if (pending.settle(parsed.data.request_id, parsed.data) || parsed.data.status !== "ok") return reply("ok", {});
      // In a cluster the app may wait on the node that forwarded the request: its answer is that node's to take.
      if (core.cluster) {
        const result = parsed.data;
        return void core.cluster.routeAnswer(state, "pair_result", result).then((taken) => {
          if (taken === true) reply("ok", {});
          else abandoned(core, state, result, reply);
        });
      }
      abandoned(core, state, parsed.data, reply);
      return;
    }
    case "api_result": {
      // The server sends its answers without a ref (fire and forget, one frame per call less both ways); one with a
      // ref is acknowledged as any push.
      const parsed = apiResultSchema.safeParse(frame.payload);
      if (!parsed.success) {
        core.log.log("warn", "api_result not understood", { server_id: state.id, problem: parsed.error.issues[0]?.message });
        return frame.ref === null ? undefined : reply("error", { reason: "invalid_params" });
      }
      if (!apiRelay.answer(state, parsed.data) && core.cluster) void core.cluster.routeAnswer(state, "api_result", parsed.data);
      return frame.ref === null ? undefined : reply("ok", {});
    }
    default:
      core.log.log("warn", "unknown event on server topic", { server_id: state.id, event: frame.event });
      return reply("error", { reason: "unknown_event" });
  }
}

/**
 * The app left (or the wait timed out) while the server was redeeming: the device exists but nobody holds its token.
 * "abandoned" tells the server to revoke it.
 */
function abandoned(core: BridgeCore, state: ServerState, result: Extract<PairResult, { status: "ok" }>, reply: (status: "ok" | "error", response: Record<string, unknown>) => void): void {
  core.log.log("warn", "pair_result for a pairing nobody waits for", { server_id: state.id, device_id: result.device_id });
  reply("error", { reason: "abandoned" });
}

/** Each form the server sent, serialized once; the sealed one is all an encrypting device ever gets. */
function bufferedForms(eventId: string, payload: Record<string, unknown>): BufferedEvent {
  return {
    id: eventId,
    ...(payload.event === undefined ? {} : { payloadJson: JSON.stringify({ event: payload.event }) }),
    ...(payload.sealed === undefined ? {} : { sealedJson: JSON.stringify(payload.sealed) }),
  };
}
