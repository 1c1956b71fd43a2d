// Where a server's answer (pair_result, api_result, share_result) finds the waiter that asked for it on this node. The pairing
// waits and the relay register their taker when they are built; the cluster's inbox hands answers given on another
// node's link to it. Made before either side, so neither is bound to the other after it is built.
import type { ServerState } from "./registry.ts";
import type { AnswerEvent } from "./shared-state.ts";

/** Takes an answer for a request made on this node; false when nobody here waits for it. */
export type AnswerTaker = (state: ServerState, payload: Record<string, unknown>) => boolean;

export class AnswerDesk {
  private readonly takers = new Map<AnswerEvent, AnswerTaker>();

  serve(event: AnswerEvent, taker: AnswerTaker): void {
    this.takers.set(event, taker);
  }

  take(event: AnswerEvent, state: ServerState, payload: Record<string, unknown>): boolean {
    return this.takers.get(event)?.(state, payload) ?? false;
  }
}
