// Forwarding to the node holding a server's link (docs/bridge.md "Cluster"): a frame for a link on another node goes
// through that node's inbox (inbox.ts), and the server's answer to a request forwarded here goes back through the
// inbox of the node that forwarded it, found by the request's `request_id`. Inbox waits and routes run on wall time
// (`systemClock`) like the other Redis-side timers.
import { after, systemClock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { AnswerDesk } from "../state/answer-desk.ts";
import type { Registry, ServerState } from "../state/registry.ts";
import type { AnswerEvent, ToServerEvent } from "../state/shared-state.ts";
import { Inbox } from "./inbox.ts";
import type { NodeRedis } from "./keys.ts";
import type { LinkOwnership } from "./links.ts";
import { inboxRequestSchema, type InboxRequest } from "./requests.ts";

/** What forwarding is built from: who holds each link, the servers, and where answers for this node are taken. */
export interface ForwardingOptions extends NodeRedis {
  config: BridgeConfig;
  links: LinkOwnership;
  registry: Registry;
  answers: AnswerDesk;
  failed: (error: unknown) => void;
}

export class Forwarding {
  readonly inbox: Inbox;
  /** request id → the node that forwarded it, for the server's answer given here. */
  private readonly answerRoutes = new Map<string, { node: string; forget: () => void }>();

  constructor(private readonly options: ForwardingOptions) {
    this.inbox = new Inbox({
      redis: options.redis,
      keys: options.keys,
      nodeId: options.nodeId,
      timeoutMs: options.config.cluster.inboxTimeoutMs,
      clock: systemClock,
      handle: (request, from) => this.handleRequest(request, from),
      failed: options.failed,
    });
  }

  /**
   * Sends a frame to the server's link wherever it is: here, or through the inbox of the node holding it. False when
   * no node holds it. A `request_id` in the payload routes the server's answer back to this node.
   */
  async toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): Promise<boolean> {
    if (state.liveLink) return state.push(event, payload);
    const owner = await this.options.links.owner(state.id).catch(() => undefined);
    if (owner === undefined || owner === this.options.nodeId) return false;
    const reply = await this.inbox.call(owner, {
      kind: "to_server",
      server_id: state.id,
      event,
      payload,
    } satisfies InboxRequest);
    return (reply as { delivered?: boolean } | undefined)?.delivered === true;
  }

  async routeAnswer(
    state: ServerState,
    event: AnswerEvent,
    payload: Record<string, unknown>,
  ): Promise<boolean | undefined> {
    const requestId = typeof payload.request_id === "string" ? payload.request_id : undefined;
    const route = requestId === undefined ? undefined : this.answerRoutes.get(requestId);
    if (!route) return undefined;
    route.forget();
    this.answerRoutes.delete(requestId!);
    const reply = await this.inbox.call(route.node, {
      kind: "answer",
      server_id: state.id,
      event,
      payload,
    } satisfies InboxRequest);
    return (reply as { taken?: boolean } | undefined)?.taken === true;
  }

  close(): void {
    this.inbox.close();
    for (const route of this.answerRoutes.values()) route.forget();
  }

  private async handleRequest(request: unknown, from: string): Promise<unknown> {
    const parsed = inboxRequestSchema.safeParse(request);
    if (!parsed.success) return { error: "invalid_request" };
    const state = this.options.registry.get(parsed.data.server_id);
    if (parsed.data.kind === "to_server") {
      if (!state?.liveLink) return { delivered: false };
      const requestId = parsed.data.payload.request_id;
      if (typeof requestId === "string") this.rememberRoute(requestId, from);
      return { delivered: state.push(parsed.data.event, parsed.data.payload) };
    }
    return { taken: state !== undefined && this.options.answers.take(parsed.data.event, state, parsed.data.payload) };
  }

  /** Remembers who forwarded a request, as long as its answer may come (the longest of the waits). */
  private rememberRoute(requestId: string, node: string): void {
    const ttl =
      Math.max(this.options.config.pairingTimeoutMs, this.options.config.relay.timeoutMs ?? 30_000) +
      this.options.config.cluster.inboxTimeoutMs;
    const forget = after(systemClock, ttl, () => this.answerRoutes.delete(requestId));
    this.answerRoutes.set(requestId, { node, forget });
  }
}
