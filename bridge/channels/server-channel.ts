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
  BRIDGE_CLOSE,
} from "../../client/wire/frames.ts";
import { after, type Clock } from "../clock.ts";
import type { BridgeCore } from "../core.ts";
import type { ApiRelay } from "../relay/api-relay.ts";
import { AddressRateLimiter } from "../rate-limiter.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import type { ServerState } from "../state/registry.ts";
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
  ask(state: ServerState, app: Connection, code: string, deviceName: string, timeoutMs: number): { result: Promise<PairResult>; cancel: () => void } {
    const link = state.link!;
    const requestId = randomUUID();
    const result = new Promise<PairResult>((resolve) => {
      const cancelTimeout = after(this.clock, timeoutMs, () => this.settle(requestId, { request_id: requestId, status: "error", reason: "server_unavailable" }));
      this.waiting.set(requestId, { serverId: state.id, app, resolve, cancelTimeout });
    });
    link.connection.send({ joinRef: link.joinRef, ref: null, topic: `server:${state.id}`, event: "pair_request", payload: { request_id: requestId, code, device_name: deviceName } });
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
      const state = auth.state;
      state.link = { connection, joinRef: frame.joinRef };
      core.registry.applyGrants(state, params.data.devices, params.data.codes);
      const resumeAfter = core.registry.resume(state, params.data.epoch, params.data.cursor);
      core.log.log("info", "server joined", { server_id: serverId, socket: connection.id, resume_after: resumeAfter });
      const entry = {
        joinRef: frame.joinRef,
        handleIn: (pushed: Frame) => handleServerPush(core, pending, relay, connection, state, pushed),
        terminate: () => {
          if (state.link?.connection !== connection) return;
          state.link = undefined;
          pending.failAll(serverId);
          relay.serverGone(serverId);
          core.log.log("info", "server left", { server_id: serverId, socket: connection.id });
        },
      };
      return { entry, outcome: { status: "ok", response: { resume_after: resumeAfter } } };
    },
  };
}

function handleServerPush(core: BridgeCore, pending: PendingPairs, apiRelay: ApiRelay, connection: Connection, state: ServerState, frame: Frame): void {
  const reply = (status: "ok" | "error", response: Record<string, unknown>) => connection.send(replyFrame(frame, status, response));
  switch (frame.event) {
    case "session_event": {
      const parsed = serverSessionEventSchema.safeParse(frame.payload);
      if (!parsed.success) return reply("error", { reason: "invalid_event" });
      relay(core, state, parsed.data.event.event_id, frame.payload, parsed.data.after);
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
      // The app left (or the wait timed out) while the server was redeeming: the device exists but nobody holds its
      // token. "abandoned" tells the server to revoke it.
      core.log.log("warn", "pair_result for a pairing nobody waits for", { server_id: state.id, device_id: parsed.data.device_id });
      return reply("error", { reason: "abandoned" });
    }
    case "api_result": {
      // The server sends its answers without a ref (fire and forget, one frame per call less both ways); one with a
      // ref is acknowledged as any push.
      const parsed = apiResultSchema.safeParse(frame.payload);
      if (!parsed.success) {
        core.log.log("warn", "api_result not understood", { server_id: state.id, problem: parsed.error.issues[0]?.message });
        return frame.ref === null ? undefined : reply("error", { reason: "invalid_params" });
      }
      apiRelay.answer(state, parsed.data);
      return frame.ref === null ? undefined : reply("ok", {});
    }
    default:
      core.log.log("warn", "unknown event on server topic", { server_id: state.id, event: frame.event });
      return reply("error", { reason: "unknown_event" });
  }
}

/**
 * Broadcasts an event once, in order. An id at or below the newest received (the server resending unacked pushes, or
 * a stale push arriving late) is never relayed; one after a hole (its `after` beyond what arrived) first sends the
 * subscribers away: they rejoin from their cursor, before the hole, and are told `gap`.
 */
function relay(core: BridgeCore, state: ServerState, eventId: string, payload: Record<string, unknown>, after: string | undefined): void {
  const buffered = { id: eventId, payloadJson: JSON.stringify({ event: payload.event }) };
  const arrival = state.buffer.push(buffered, after);
  if (arrival === "duplicate" || arrival === "late") {
    core.metrics.duplicateEvents++;
    if (arrival === "late") core.log.log("warn", "event arrived behind newer ones; replay before it is a gap", { server_id: state.id, event_id: eventId, last_id: state.lastId ?? null });
    return;
  }
  if (arrival === "after_hole") {
    core.log.log("warn", "hole in the server's events; subscribers sent to rejoin", { server_id: state.id, event_id: eventId, after: after ?? null, last_id: state.lastId ?? null });
    state.topic.closeAll(BRIDGE_CLOSE.restart, "hole in the event sequence");
  }
  state.lastId = eventId;
  state.topic.broadcast(buffered);
  core.metrics.eventsRelayed++;
}
