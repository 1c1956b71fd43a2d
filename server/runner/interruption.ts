// Why a reply ended before it finished (docs/runner.md "Interrupted replies"): the person's Stop ("user"), the
// server shutting down ("shutdown"), or a crash found at the next start ("crash"). The text streamed so far is kept as
// the assistant message with `metadata.interrupted` set to the reason, so the app can say which; a failure of the
// backend keeps `interrupted: true` with `interrupted_reason: "error"`. `interrupted_reason` stays for older readers.
import type { Message } from "../../client/wire/index.ts";

export type StopReason = "user" | "shutdown";
export type InterruptionReason = StopReason | "crash" | "error";

/** The abort reason of a run's signal: who stopped it. */
export class RunStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(reason === "user" ? "cancelled by the client" : "the server is shutting down");
  }
}

/** Who stopped an aborted run; "user" for an abort of unknown origin (a cancel is the only other abort). */
export function stopReasonOf(signal: AbortSignal): StopReason {
  return signal.reason instanceof RunStopped ? signal.reason.reason : "user";
}

const LEGACY_REASON: Record<InterruptionReason, string> = {
  user: "cancelled",
  shutdown: "server_stopped",
  crash: "server_stopped",
  error: "error",
};

export function interruptedMetadata(reason: InterruptionReason): Record<string, unknown> {
  return { interrupted: reason === "error" ? true : reason, interrupted_reason: LEGACY_REASON[reason] };
}

/** What one phase streamed, as the interrupted assistant message; undefined when nothing was streamed. */
export function interruptedReply(
  content: string,
  reasoning: Record<string, string>,
  reason: InterruptionReason,
): Message | undefined {
  if (content === "" && Object.keys(reasoning).length === 0) return undefined;
  return { role: "assistant", content, metadata: { ...reasoning, ...interruptedMetadata(reason) } };
}
