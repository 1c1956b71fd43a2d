// The API relay (docs/bridge.md "Relay"): an app's `api` push on `events:server:<id>` becomes an `api_request` on
// the server's channel, carrying the device id the bridge authenticated from the socket's token (never one the app
// names) and a request id of the bridge's own; the server's `api_result` answers the app's push. Every call is
// validated, bounded (in flight and per second, per socket and per server), timed out, and dropped when its app
// goes away. An answer for a device revoked meanwhile is never delivered.
import { randomUUID } from "node:crypto";
import {
  apiPushSchema,
  apiResultSchema,
  asksLongPoll,
  jsonBytes,
  RELAY_MAX_BODY_BYTES,
  type ApiResult,
  type Frame,
  type RelayErrorReason,
} from "../../client/wire/frames.ts";
import { after } from "../clock.ts";
import type { BridgeCore } from "../core.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import type { ServerState } from "../state/registry.ts";
import { DEFAULT_RELAY_CONFIG, type RelayConfig } from "./relay-config.ts";
import { RelayLimits } from "./relay-limits.ts";

/** One call waiting for its server's answer. */
interface PendingCall {
  app: Connection;
  /** The app's push, whose ref the answer echoes. */
  push: Frame;
  serverId: string;
  deviceId: string;
  tokenHash: string;
  cancelTimeout: () => void;
}

export class ApiRelay {
  private readonly pending = new Map<string, PendingCall>();
  private readonly limits: RelayLimits;
  private readonly config: RelayConfig;

  /** Answers given on another node's link reach `answer` through the core's answer desk. */
  constructor(private readonly core: BridgeCore) {
    this.config = { ...DEFAULT_RELAY_CONFIG, ...core.config.relay };
    this.limits = new RelayLimits(core.clock, this.config);
    core.answers.serve("api_result", (state, payload) => {
      const result = apiResultSchema.safeParse(payload);
      return result.success && this.answer(state, result.data);
    });
  }

  /** An app's `api` push on its server's topic. The token was checked at join; it is checked again now. */
  forward(app: Connection, state: ServerState, push: Frame): void {
    const deviceId = app.tokenHash === undefined ? undefined : this.core.registry.deviceOf(state.id, app.tokenHash);
    if (deviceId === undefined)
      return this.refuse(app, push, "invalid_request", "relay call from a token this server no longer grants");
    const call = apiPushSchema.safeParse(push.payload);
    if (!call.success)
      return this.refuse(app, push, "invalid_request", "relay call malformed", {
        problem: call.error.issues[0]?.message,
      });
    if (asksLongPoll(call.data.path))
      return this.refuse(app, push, "invalid_request", "relay call asked for a long-poll (wait_ms)");
    if (jsonBytes(call.data.body) > RELAY_MAX_BODY_BYTES)
      return this.refuse(app, push, "too_large", "relay call body too large");
    if (!this.limits.admit(socketKey(app), serverKey(state.id)))
      return this.refuse(app, push, "rate_limited", "relay call rate limited");
    const requestId = randomUUID();
    const cancelTimeout = after(this.core.clock, this.config.timeoutMs, () => this.fail(requestId, "timeout"));
    this.pending.set(requestId, { app, push, serverId: state.id, deviceId, tokenHash: app.tokenHash!, cancelTimeout });
    const payload = {
      request_id: requestId,
      device_id: deviceId,
      method: call.data.method,
      path: call.data.path,
      ...(call.data.body === undefined ? {} : { body: call.data.body }),
    };
    // The link may be on another node (a cluster): the call fails at once when no node holds it.
    const delivered = this.core.servers.toServer(state, "api_request", payload);
    const away = () => this.fail(requestId, "server_unavailable", "relay call to a server that is away");
    if (delivered === false) away();
    else if (delivered !== true) void delivered.then((sent) => sent || away());
  }

  /**
   * The server's `api_result`: answered to the app that asked, if it is still there and still granted. False when
   * the call is not this bridge's (in a cluster, another node's).
   */
  answer(state: ServerState, result: ApiResult): boolean {
    const call = this.pending.get(result.request_id);
    if (!call || call.serverId !== state.id) return false;
    this.forget(result.request_id, call);
    if (!call.app.open) return true;
    // Revoked while the call was in flight (its socket is normally closed with 4001 already): never answered.
    if (this.core.registry.deviceOf(state.id, call.tokenHash) !== call.deviceId) {
      this.core.log.warn(
        {
          socket: call.app.id,
          server_id: state.id,
          device_id: call.deviceId,
        },
        "relay answer for a revoked device dropped",
      );
      return true;
    }
    if ("reason" in result) this.reply(call, "error", { reason: result.reason });
    else {
      const { request_id: _requestId, ...answer } = result;
      this.reply(call, "ok", answer);
    }
    return true;
  }

  /** The server's channel ended: whatever it was asked is answered `server_unavailable`. */
  serverGone(serverId: string): void {
    for (const [requestId, call] of this.pending)
      if (call.serverId === serverId) this.fail(requestId, "server_unavailable");
  }

  /** The app's channel or socket ended: its calls are dropped (nobody could take the answers). */
  appGone(app: Connection): void {
    for (const [requestId, call] of this.pending) if (call.app === app) this.forget(requestId, call);
  }

  private fail(requestId: string, reason: RelayErrorReason, logMsg = "relay call failed"): void {
    const call = this.pending.get(requestId);
    if (!call) return;
    this.forget(requestId, call);
    this.core.log.warn(
      {
        socket: call.app.id,
        address: call.app.address,
        server_id: call.serverId,
        reason,
      },
      logMsg,
    );
    if (call.app.open) this.reply(call, "error", { reason });
  }

  private forget(requestId: string, call: PendingCall): void {
    call.cancelTimeout();
    this.pending.delete(requestId);
    this.limits.release(socketKey(call.app), serverKey(call.serverId));
  }

  private reply(call: PendingCall, status: "ok" | "error", response: Record<string, unknown>): void {
    call.app.send(replyFrame(call.push, status, response));
  }

  private refuse(
    app: Connection,
    push: Frame,
    reason: RelayErrorReason,
    logMsg: string,
    extra: Record<string, unknown> = {},
  ): void {
    this.core.log.warn({ socket: app.id, address: app.address, topic: push.topic, reason, ...extra }, logMsg);
    app.send(replyFrame(push, "error", { reason }));
  }
}

const socketKey = (app: Connection) => `socket:${app.id}`;
const serverKey = (serverId: string) => `server:${serverId}`;
