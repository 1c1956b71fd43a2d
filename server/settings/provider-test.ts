// The Connections screen's Test (docs/settings.md "Connections"): lists the backend's models and, only when asked
// (hosted backends bill it), makes a one-token completion. The answer carries the latency and, when the backend
// refused or could not be reached, its own words; a failed test is still a 200 answer, like model discovery.
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../clock.ts";
import { createProvider, discoverModels, type ProviderSettings } from "../provider/index.ts";
import type { ProviderTest } from "../../client/wire/routes/settings.ts";

export interface ProviderTestParts {
  clock: Clock;
  log: FastifyBaseLogger;
  /** Milliseconds from an arbitrary origin, for the latency (performance.now in production). */
  elapsed: () => number;
}

export async function testProvider(
  settings: ProviderSettings,
  complete: boolean,
  parts: ProviderTestParts,
): Promise<ProviderTest> {
  const started = parts.elapsed();
  const discovery = await discoverModels(settings, parts.clock);
  const models = discovery.models.map((model) => model.id);
  let error = discovery.error;
  if (error === undefined && complete) error = await oneTokenCompletion(settings, parts);
  const latency_ms = Math.max(0, Math.round(parts.elapsed() - started));
  return error === undefined ? { ok: true, latency_ms, models } : { ok: false, latency_ms, models, error };
}

/** undefined when the backend answered; else what went wrong, as the provider adapter words it. */
async function oneTokenCompletion(settings: ProviderSettings, parts: ProviderTestParts): Promise<string | undefined> {
  // One attempt: a test says how the backend answers now, it does not wait out retries.
  const once: ProviderSettings = {
    ...settings,
    request_options: { ...settings.request_options, max_tokens: 1 },
    rate_limit_retry_delays_seconds: [],
    retry_on_status: {},
    retry_on_timeout: [],
    stream_recovery: { mode: "disabled", max_retries: 0 },
  };
  const provider = createProvider(once, { clock: parts.clock, log: parts.log });
  const controller = new AbortController();
  try {
    for await (const delta of provider.complete({
      messages: [{ role: "user", content: "Say OK." }],
      stream: false,
      signal: controller.signal,
    }))
      if (delta.type === "done") return undefined;
    return "the backend's answer ended without a reply";
  } catch (error) {
    return (error as Error).message;
  }
}
