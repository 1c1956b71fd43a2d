// What a topic handler gives the router for one join: the channel entry (registered at once, so a leave or a
// duplicate join can end it while it is still joining) and the join's outcome, possibly later (pairing waits for
// the server).
import type { BridgeReason } from "../../client/wire/bridge-errors.ts";
import type { Frame } from "../../client/wire/frames.ts";
import type { Connection, ChannelEntry } from "../socket/connection.ts";

export type JoinOutcome =
  | {
      status: "ok";
      response: Record<string, unknown>;
      /** Runs right after the ok reply is sent (replay, subscribe). */ afterReply?: () => void;
    }
  | { status: "error"; response: { reason: BridgeReason } };

export interface JoinAttempt {
  entry: ChannelEntry;
  outcome: JoinOutcome | Promise<JoinOutcome>;
}

export interface TopicHandler {
  join(connection: Connection, frame: Frame, match: RegExpExecArray): JoinAttempt;
}

export const refuse = (reason: BridgeReason): JoinOutcome => ({ status: "error", response: { reason } });

/** An entry for a join that failed before doing anything. */
export const inertEntry = (joinRef: string | null): ChannelEntry => ({
  joinRef,
  handleIn: () => undefined,
  terminate: () => undefined,
});
