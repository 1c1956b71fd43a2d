// Approvals of MCP tool calls (docs/tools.md "Approvals"): a session interaction per call that needs one, the wait
// for a person's answer, and the record's moves. States of the record (the interaction lifecycle):
//   pending_response --respond (route)--> responded --resolve (runner, after running or refusing)--> resolved
//   pending_response --approval_timeout_seconds--> expired      (the call is refused)
//   pending_response --request cancelled or shut down--> cancelled
//   pending_response --request ended otherwise, or a restart--> expired (retention until_request_complete)
// The run waits on a promise kept here by notification id; a respond for an id nobody waits on is refused (409).
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { Clock } from "../clock.ts";
import { deadlineAfter } from "../clock.ts";
import type { EventStore } from "../events/event-store.ts";
import { parseProducer, producerInputSchema, type ParsedMoveInput } from "../notifications/input.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import { headOf } from "../../client/wire/whole-characters.ts";

export type Answer = { response: "approve" | "deny"; message?: string | undefined };
export type Outcome = Answer | { response: "expired" } | { response: "cancelled" };

export interface ApprovalRequest {
  sessionId: string;
  requestId: string;
  toolCallId: string;
  callIndex: number;
  /** The exposed name, mcp__<server>__<tool>. */
  name: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  signal: AbortSignal;
}

/** The body shows the arguments as pretty JSON, cut here so one huge argument cannot make a huge record. */
const MAX_BODY = 16 * 1024;

/** The tool_approval event's state for each way a wait ends. */
const STATE = { approve: "approved", deny: "denied", expired: "expired", cancelled: "cancelled" } as const;

export class Approvals {
  private readonly waiting = new Map<string, (answer: Answer) => void>();

  constructor(
    private readonly parts: { notifications: NotificationService; events: Pick<EventStore, "publish">; clock: Clock },
  ) {}

  /** Whether a run is waiting on this record right now (its request is running and the record pending). */
  isWaiting(notificationId: string): boolean {
    return this.waiting.has(notificationId);
  }

  /**
   * Hands the answer to the waiting run. The caller (the respond route) has already moved the record to
   * responded; false when nobody waits on it any more.
   */
  answer(notificationId: string, answer: Answer): boolean {
    const wake = this.waiting.get(notificationId);
    if (!wake) return false;
    this.waiting.delete(notificationId);
    wake(answer);
    return true;
  }

  /** Creates the interaction, announces the wait, and resolves with what ended it. */
  async ask(request: ApprovalRequest): Promise<{ outcome: Outcome; record: NotificationRecord }> {
    const scope = this.parts.notifications.session(request.sessionId);
    const record = scope.publish(
      parseProducer(producerInputSchema, {
        key: `approval:${request.requestId}:${request.callIndex}`,
        kind: "interaction",
        severity: "warning",
        title: `Approve ${request.name}`,
        body: argumentsText(request.args),
        display: { presentation: "modal", approval: approvalDisplay(request) },
        retention: { version: 1, policy: "until_request_complete" },
        request_id: request.requestId,
      }),
      `mcp:${request.server}`,
    );
    this.announce(request, record.id, "waiting");
    const outcome = await this.wait(record, request);
    return { outcome, record };
  }

  /** responded → resolved once the runner has run or refused the call; best effort (the record may be gone). */
  resolve(sessionId: string, record: NotificationRecord, detail: Record<string, string>): void {
    try {
      this.parts.notifications.session(sessionId).move(moveOf(record, detail), "resolve", record.source.plugin);
    } catch {
      // The session was deleted, or the record already ended: nothing is left to resolve.
    }
  }

  private wait(record: NotificationRecord, request: ApprovalRequest): Promise<Outcome> {
    const deadline = deadlineAfter(this.parts.clock, request.timeoutMs, request.signal);
    return new Promise<Outcome>((resolve) => {
      // Announced synchronously with the answer or the abort, so it always precedes request_completed.
      const settle = (outcome: Outcome) => {
        this.announce(request, record.id, STATE[outcome.response]);
        this.waiting.delete(record.id);
        deadline.signal.removeEventListener("abort", onEnd);
        deadline.dispose();
        resolve(outcome);
      };
      // Synchronous with the abort: the record is cancelled before the run can reach request_completed (whose
      // retention boundary would otherwise expire it).
      const onEnd = () => {
        const cancelled = request.signal.aborted;
        this.end(request.sessionId, record, cancelled ? "cancel" : "expire");
        settle({ response: cancelled ? "cancelled" : "expired" });
      };
      this.waiting.set(record.id, (answer) => settle(answer));
      if (deadline.signal.aborted) return onEnd();
      deadline.signal.addEventListener("abort", onEnd, { once: true });
    });
  }

  private end(sessionId: string, record: NotificationRecord, move: "cancel" | "expire"): void {
    const detail = move === "cancel" ? { reason: "request_cancelled" } : { reason: "approval_timeout" };
    try {
      this.parts.notifications.session(sessionId).move(moveOf(record, detail), move, record.source.plugin);
    } catch {
      // Already answered or ended by something else (the session went away): its state stands.
    }
  }

  private announce(request: ApprovalRequest, notificationId: string, state: string): void {
    try {
      this.parts.events.publish({
        type: "tool_approval",
        session_id: request.sessionId,
        request_id: request.requestId,
        tool_call_id: request.toolCallId,
        tool_name: request.name,
        notification_id: notificationId,
        state,
      });
    } catch {
      // Best effort like every notification event: the record is the authority.
    }
  }
}

function moveOf(record: NotificationRecord, detail: Record<string, string>): ParsedMoveInput {
  return { key: record.key, detail } as ParsedMoveInput;
}

function argumentsText(args: Record<string, unknown>): string {
  const text = JSON.stringify(args, null, 2);
  return text.length <= MAX_BODY ? text : `${headOf(text, MAX_BODY)}\n… (${text.length - MAX_BODY} more characters)`;
}

/** What an approval card shows: the tool, its server and its arguments (left out when too large; the body has them). */
function approvalDisplay(request: ApprovalRequest): Record<string, unknown> {
  const small = JSON.stringify(request.args).length <= MAX_BODY;
  return {
    server: request.server,
    tool: request.tool,
    name: request.name,
    tool_call_id: request.toolCallId,
    ...(small ? { arguments: request.args } : {}),
  };
}
