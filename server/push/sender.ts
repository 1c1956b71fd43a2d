// One push to one subscription: web-push builds the request (VAPID JWT, RFC 8291 aes128gcm encryption of the
// payload with the subscription's keys) and undici sends it, so the server needs no other HTTP client and a test's
// loopback push service works (web-push's own sendNotification speaks only https). The push service's answer is
// read into what the delivery queue does next.
import { createHash } from "node:crypto";
import { Agent, request } from "undici";
import webpush from "web-push";
import { systemClock } from "../clock.ts";
import type { VapidKeys } from "./vapid-keys.ts";
import type { StoredSubscription } from "./subscription-store.ts";
import type { Urgency } from "./triggers.ts";

export type SendOutcome =
  | { kind: "delivered" }
  /** 404/410: the subscription is gone for good (unsubscribed, expired, app uninstalled). */
  | { kind: "gone"; status: number }
  /** 429, 5xx or no answer: try again later; `afterMs` from a Retry-After header. */
  | { kind: "retry"; status?: number; afterMs?: number; problem?: string }
  /** Any other answer: this message is refused (too large, bad VAPID), the subscription is kept. */
  | { kind: "refused"; status: number };

export interface SendOptions {
  ttlSeconds: number;
  urgency: Urgency;
  /** RFC 8030 Topic: the push service replaces an undelivered message with the same topic. */
  topic?: string;
  signal: AbortSignal;
}

/** Bound on one request: a push service that does not answer in time is retried like a 5xx. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Retry-After beyond this is not waited for (the delivery gives up instead). */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** A VAPID JWT is valid this long (push services refuse more than 24 h) and renewed this long before it ends. */
const JWT_LIFETIME_SECONDS = 12 * 3600;
const JWT_RENEW_BEFORE_SECONDS = 3600;
const MAX_AUDIENCES = 1000;

export class PushSender {
  private readonly authorizations = new Map<string, { header: string; expiresAt: number }>();
  private readonly agent = new Agent({
    connectTimeout: 10_000,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 30_000,
  });

  constructor(
    private readonly keys: VapidKeys,
    private readonly subject: string,
    /** Wall-clock ms (the push service checks the JWT's expiry against its own clock). */
    private readonly now: () => number = systemClock.now,
  ) {}

  async send(subscription: StoredSubscription, payload: string, options: SendOptions): Promise<SendOutcome> {
    const details = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: subscription.keys },
      payload,
      {
        headers: { Authorization: this.authorizationFor(subscription.endpoint) },
        contentEncoding: "aes128gcm",
        TTL: options.ttlSeconds,
        urgency: options.urgency,
        ...(options.topic ? { topic: options.topic } : {}),
      },
    );
    // undici sets Content-Length from the body itself; the rest go as strings.
    const headers = Object.fromEntries(
      Object.entries(details.headers)
        .filter(([name]) => name.toLowerCase() !== "content-length")
        .map(([name, value]) => [name, String(value)]),
    );
    try {
      const response = await request(details.endpoint, {
        method: "POST",
        headers,
        body: details.body,
        signal: options.signal,
        dispatcher: this.agent,
      });
      await response.body.dump({ limit: 64 * 1024 });
      return outcomeOf(response.statusCode, response.headers["retry-after"]);
    } catch (error) {
      if (options.signal.aborted) throw error;
      return { kind: "retry", problem: (error as Error).message };
    }
  }

  /**
   * The VAPID Authorization of a push service (RFC 8292: a JWT for the endpoint's origin), signed once and reused until
   * an hour before it expires, instead of a signature per push. Its expiry is wall-clock time: the push service checks
   * it against its own clock.
   */
  private authorizationFor(endpoint: string): string {
    const audience = new URL(endpoint).origin;
    const nowSeconds = Math.floor(this.now() / 1000);
    const held = this.authorizations.get(audience);
    if (held && held.expiresAt - nowSeconds > JWT_RENEW_BEFORE_SECONDS) return held.header;
    const expiresAt = nowSeconds + JWT_LIFETIME_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      this.subject,
      this.keys.publicKey,
      this.keys.privateKey,
      "aes128gcm",
      expiresAt,
    ) as { Authorization: string };
    // Push services are a handful of origins; a flood of distinct ones only costs re-signing.
    if (this.authorizations.size >= MAX_AUDIENCES) this.authorizations.clear();
    this.authorizations.set(audience, { header: Authorization, expiresAt });
    return Authorization;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function outcomeOf(status: number, retryAfter: string | string[] | undefined): SendOutcome {
  if (status >= 200 && status < 300) return { kind: "delivered" };
  if (status === 404 || status === 410) return { kind: "gone", status };
  if (status === 429 || status >= 500) {
    const afterMs = retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    return { kind: "retry", status, ...(afterMs !== undefined ? { afterMs } : {}) };
  }
  return { kind: "refused", status };
}

/** Retry-After in seconds (the form push services use), bounded; a date or garbage is ignored. */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,7}$/.test(value.trim())) return undefined;
  return Math.min(Number(value.trim()) * 1000, MAX_RETRY_AFTER_MS);
}

/** A Topic header (at most 32 base64url characters) standing for a tag: tags are record ids, chats' ids. */
export function topicOf(tag: string): string {
  return createHash("sha256").update(tag).digest("base64url").slice(0, 32);
}
