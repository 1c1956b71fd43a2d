// Which committed events become pushes (docs/push.md "What is pushed"). A pure reading of the event log, in order:
// - an interaction waiting for an answer (an approval): Urgency high, TTL the time left to answer, never coalesced;
// - a notification pending at `push.min_severity` or above;
// - a finished reply (`request_completed` of a request that published `final`), to devices without a live connection;
// - a record that stops waiting (answered, resolved, dismissed, expired) after it was pushed: a quiet "done" with the
//   same tag, which replaces the shown one (every push shows something: silent pushes cost the subscription on iOS).
// It remembers, bounded, which tags it pushed and the final reply of each request still running.
import type { NotificationRecord, Severity } from "../../client/wire/notification.ts";
import type { PushConfig } from "../config/push.ts";
import { previewText, REPLY_TITLE, type PushPayload } from "./payload.ts";
import { markdownToPlainText } from "./plain-text.ts";

export type Urgency = "very-low" | "low" | "normal" | "high";

export interface PushIntent {
  /** `offline`: only devices the server does not know to have a live connection. */
  audience: "all" | "offline";
  tag: string;
  /** What devices without previews get, and what devices with previews get (built only when one has them). */
  plain: PushPayload;
  preview: () => PushPayload;
  urgency: Urgency;
  ttlSeconds: number;
  /** Whether a newer push with the same tag may replace this one before it is delivered. */
  coalesce: boolean;
}

/** A stored event as the push reader sees it (only the fields used here). */
export interface LogEvent {
  type: string;
  session_id?: string;
  request_id?: string;
  notification?: NotificationRecord;
  messages?: Array<{ role?: string; content?: unknown }>;
}

const SEVERITY_RANK: Record<Severity, number> = { info: 0, success: 1, warning: 2, error: 3 };
const DAY_SECONDS = 24 * 3600;
/** Bounds of the remembered state: beyond them the oldest entries go (a forgotten tag only costs a spare "done"). */
const MAX_TAGS = 10_000;
const MAX_RUNNING = 10_000;

export type TriggerSettings = Pick<PushConfig, "min_severity" | "replies" | "interaction_ttl_seconds">;

export class PushTriggers {
  /** tag → whether its last push was the record itself (true) or its "done" (false). */
  private readonly shown = new Map<string, boolean>();
  /** request id → the last final reply it published, until its request_completed. */
  private readonly finals = new Map<string, { sessionId: string; text: string }>();

  constructor(
    private readonly settings: TriggerSettings,
    private readonly now: () => number,
    /** The chat's title, read only for devices with previews. */
    private readonly chatTitle: (sessionId: string) => string | undefined,
  ) {}

  intentsOf(event: LogEvent): PushIntent[] {
    if (event.notification && event.type.includes("_notification_"))
      return this.ofRecord(event.notification, event.session_id);
    if (event.type === "final" && event.request_id && event.session_id)
      this.noteFinal(event.request_id, event.session_id, event.messages ?? []);
    // A stopped or failed request keeps what it streamed as its reply, but that is no finished answer to announce.
    if ((event.type === "request_cancelled" || event.type === "error") && event.request_id)
      this.finals.delete(event.request_id);
    if (event.type === "request_completed" && event.request_id) return this.ofCompletion(event.request_id);
    if (event.type === "session_deleted" && event.session_id)
      return this.withdraw(replyTag(event.session_id), "Chat deleted", event.session_id);
    return [];
  }

  private ofRecord(record: NotificationRecord, sessionId: string | undefined): PushIntent[] {
    const session = record.session_id ?? sessionId;
    if (this.awaits(record)) {
      remember(this.shown, record.id, true, MAX_TAGS);
      return [record.kind === "interaction" ? this.approval(record, session) : this.notification(record, session)];
    }
    const wasShown = this.shown.get(record.id);
    // Unknown (never seen, or seen before a restart): a record that would have been pushed gets its "done" anyway.
    if (wasShown === false || (wasShown === undefined && !this.wouldPush(record))) return [];
    return this.withdraw(record.id, record.title, session, record.id, doneWord(record.status));
  }

  /** A record that is pushed while in its current state. */
  private awaits(record: NotificationRecord): boolean {
    if (record.kind === "interaction") return record.status === "pending_response";
    return record.status === "pending" && this.wouldPush(record);
  }

  private wouldPush(record: NotificationRecord): boolean {
    return record.kind === "interaction" || SEVERITY_RANK[record.severity] >= SEVERITY_RANK[this.settings.min_severity];
  }

  private approval(record: NotificationRecord, sessionId: string | undefined): PushIntent {
    const plain = payload("approval", record.id, record.title, sessionId, record.id);
    const deadline = deadlineOf(record, this.settings.interaction_ttl_seconds, this.now());
    const ttlSeconds = Math.max(0, Math.floor((deadline - this.now()) / 1000));
    return {
      audience: "all",
      tag: record.id,
      plain,
      preview: () => withBody(plain, record.body),
      urgency: "high",
      ttlSeconds,
      coalesce: false,
    };
  }

  private notification(record: NotificationRecord, sessionId: string | undefined): PushIntent {
    const plain = payload("notification", record.id, record.title, sessionId, record.id);
    const urgency = record.severity === "error" ? "high" : "normal";
    return {
      audience: "all",
      tag: record.id,
      plain,
      preview: () => withBody(plain, record.body),
      urgency,
      ttlSeconds: DAY_SECONDS,
      coalesce: true,
    };
  }

  private noteFinal(requestId: string, sessionId: string, messages: Array<{ role?: string; content?: unknown }>): void {
    const reply = [...messages]
      .reverse()
      .find((message) => message.role === "assistant" && typeof message.content === "string");
    if (reply) remember(this.finals, requestId, { sessionId, text: reply.content as string }, MAX_RUNNING);
  }

  private ofCompletion(requestId: string): PushIntent[] {
    const reply = this.finals.get(requestId);
    this.finals.delete(requestId);
    if (!reply || !this.settings.replies) return [];
    const tag = replyTag(reply.sessionId);
    remember(this.shown, tag, true, MAX_TAGS);
    const plain = payload("reply", tag, REPLY_TITLE, reply.sessionId);
    const preview = () => {
      const title = this.chatTitle(reply.sessionId);
      // The reply's words without their Markdown signs: a lock screen shows "Done", not "**Done**".
      const body = previewText(markdownToPlainText(reply.text));
      return { ...plain, ...(title ? { title } : {}), ...(body ? { body } : {}) };
    };
    return [{ audience: "offline", tag, plain, preview, urgency: "normal", ttlSeconds: DAY_SECONDS, coalesce: true }];
  }

  /** The quiet replacement of a shown push; nothing when its "done" went already. */
  private withdraw(
    tag: string,
    title: string,
    sessionId?: string,
    notificationId?: string,
    body?: string,
  ): PushIntent[] {
    if (this.shown.get(tag) !== true && !notificationId) return [];
    remember(this.shown, tag, false, MAX_TAGS);
    const done = { ...payload("done", tag, title, sessionId, notificationId), ...(body ? { body } : {}) };
    return [
      {
        audience: "all",
        tag,
        plain: done,
        preview: () => done,
        urgency: "low",
        ttlSeconds: DAY_SECONDS,
        coalesce: true,
      },
    ];
  }
}

/** Replies are tagged by chat: a newer reply in the same chat replaces the older notification. */
export const replyTag = (sessionId: string) => `reply:${sessionId}`;

function payload(
  type: PushPayload["type"],
  tag: string,
  title: string,
  sessionId?: string,
  notificationId?: string,
): PushPayload {
  return {
    v: 1,
    type,
    tag,
    title,
    ...(sessionId ? { session_id: sessionId } : {}),
    ...(notificationId ? { notification_id: notificationId } : {}),
  };
}

function withBody(plain: PushPayload, body: string | undefined): PushPayload {
  return body && body.trim() ? { ...plain, body: previewText(body) } : plain;
}

/** When an interaction stops waiting: its retention's expires_at when it names one, else created_at + the default. */
function deadlineOf(record: NotificationRecord, defaultSeconds: number, now: number): number {
  const named = Date.parse(record.retention.expires_at ?? "");
  if (Number.isFinite(named)) return named;
  const created = Date.parse(record.created_at);
  return (Number.isFinite(created) ? created : now) + defaultSeconds * 1000;
}

function doneWord(status: NotificationRecord["status"]): string {
  switch (status) {
    case "responded":
      return "Answered";
    case "dismissed":
      return "Dismissed";
    case "expired":
      return "Expired";
    case "cancelled":
      return "Cancelled";
    case "suspended":
      return "Paused";
    default:
      return "Resolved";
  }
}

/** Sets `key` as the newest entry, dropping the oldest beyond `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
