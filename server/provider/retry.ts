// Pre-stream retry policy (docs/provider.md "Retry rules" 1-5): 429s, configured statuses and timeouts share one attempt
// counter; the delay of attempt n is entry n of the list for the failure that happened, and no entry means the
// failure is raised.
import type { ProviderSettings } from "./settings.ts";

export type PreStreamFailure =
  { kind: "rate_limit"; retryAfterMs: number | undefined } | { kind: "status"; status: number } | { kind: "timeout" };

/** Milliseconds to wait before attempt `attempt + 1`, or undefined when the failure must be raised. */
export function retryDelayMs(
  settings: ProviderSettings,
  failure: PreStreamFailure,
  attempt: number,
): number | undefined {
  const list = delaysFor(settings, failure);
  const seconds = list?.[attempt];
  if (seconds === undefined) return undefined;
  const configured = seconds * 1000;
  if (failure.kind === "rate_limit" && settings.respect_retry_after_header && failure.retryAfterMs !== undefined) {
    return Math.max(configured, failure.retryAfterMs);
  }
  return configured;
}

function delaysFor(settings: ProviderSettings, failure: PreStreamFailure): number[] | undefined {
  switch (failure.kind) {
    case "rate_limit":
      // A 429 also listed in retry_on_status uses the 429 list: rule 2 is specific to it.
      return settings.rate_limit_retry_delays_seconds.length > 0
        ? settings.rate_limit_retry_delays_seconds
        : settings.retry_on_status["429"];
    case "status":
      return settings.retry_on_status[String(failure.status)];
    case "timeout":
      return settings.retry_on_timeout;
  }
}

/**
 * The server's requested wait in ms: `retry-after-ms`, or Retry-After as seconds or an HTTP date (relative to
 * the injected clock). Uncapped: a backend asking for two minutes gets two minutes (openai-node #1108).
 */
export function parseRetryAfter(
  retryAfter: string | undefined,
  retryAfterMs: string | undefined,
  nowMs: number,
): number | undefined {
  if (retryAfterMs !== undefined) {
    const ms = Number(retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (retryAfter === undefined) return undefined;
  const trimmed = retryAfter.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
