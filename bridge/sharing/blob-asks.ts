// One `share_request` to one server's link and the wait for its `share_result` (docs/bridge.md "Share links"). The
// request goes through the shared state (`toServer`), so the link may be on this node or another node of the
// cluster; the answer finds its waiter here through the answer desk, wherever the link is. A link that is away, an
// answer that never comes (the bridge's clock, the relay's timeout) and a malformed answer all resolve "away".
import { randomUUID } from "node:crypto";
import { shareResultSchema, type ShareResult } from "../../client/wire/shared-link-frames.ts";
import { after } from "../clock.ts";
import type { BridgeCore } from "../core.ts";
import type { ServerState } from "../state/registry.ts";

/** A server's word on one part: the part, that no live link has the token, or nothing (away, timed out). */
export type PartAnswer = Extract<ShareResult, { status: "found" }> | { status: "not_found" } | { status: "away" };

interface Waiter {
  serverId: string;
  resolve: (answer: PartAnswer) => void;
  cancelTimeout: () => void;
}

export class BlobAsks {
  private readonly waiting = new Map<string, Waiter>();

  constructor(
    private readonly core: BridgeCore,
    private readonly timeoutMs: number,
  ) {
    core.answers.serve("share_result", (state, payload) => this.settle(state, payload));
  }

  /** Asks `state`'s server for the part of `token`'s blob from `offset`. */
  ask(state: ServerState, token: string, offset: number): Promise<PartAnswer> {
    const requestId = randomUUID();
    const answer = new Promise<PartAnswer>((resolve) => {
      const cancelTimeout = after(this.core.clock, this.timeoutMs, () => this.finish(requestId, { status: "away" }));
      this.waiting.set(requestId, { serverId: state.id, resolve, cancelTimeout });
    });
    const payload = { request_id: requestId, token, offset };
    void Promise.resolve(this.core.servers.toServer(state, "share_request", payload)).then(
      (delivered) => delivered || this.finish(requestId, { status: "away" }),
    );
    return answer;
  }

  /** Requests waiting for an answer now (each holds at most one part). */
  get pending(): number {
    return this.waiting.size;
  }

  /** The answer desk's taker: false for an answer nobody here waits for (another node's, or too late). */
  private settle(state: ServerState, payload: Record<string, unknown>): boolean {
    const parsed = shareResultSchema.safeParse(payload);
    if (!parsed.success) {
      const requestId = typeof payload.request_id === "string" ? payload.request_id : undefined;
      const waiter = requestId === undefined ? undefined : this.waiting.get(requestId);
      if (!waiter || waiter.serverId !== state.id) return false;
      this.core.log.warn({ server_id: state.id, problem: parsed.error.issues[0]?.message }, "share_result malformed");
      return this.finish(requestId!, { status: "away" });
    }
    const waiter = this.waiting.get(parsed.data.request_id);
    if (!waiter || waiter.serverId !== state.id) return false;
    const answer = parsed.data;
    return this.finish(answer.request_id, answer.status === "found" ? answer : { status: "not_found" });
  }

  private finish(requestId: string, answer: PartAnswer): boolean {
    const waiter = this.waiting.get(requestId);
    if (!waiter) return false;
    this.waiting.delete(requestId);
    waiter.cancelTimeout();
    waiter.resolve(answer);
    return true;
  }
}
