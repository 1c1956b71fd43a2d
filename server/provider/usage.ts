// Usage metadata and cost (SPEC.md "Provider usage and cost rules"). The raw usage object is kept as sent
// (extra fields stay inside); flat fields and `_formatted` variants are derived for footers and totals.
import type { Message } from "../../client/wire/messages.ts";
import { estimateCachedTokens } from "./cache-estimate.ts";
import type { ProviderSettings } from "./settings.ts";

type Record_ = Record<string, unknown>;

const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const obj = (value: unknown): Record_ | undefined => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record_) : undefined);

/** "12,345": the formatted variant of a token count. */
export function formatTokens(count: number): string {
  return Math.round(count).toLocaleString("en-US");
}

/** "$0.001234": more decimals for small amounts so a cheap turn does not print as $0.00. */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd >= 1 ? 2 : usd >= 0.01 ? 4 : 6)}`;
}

/** Cached prompt tokens the backend reported: prompt_tokens_details.cached_tokens, else DeepSeek's hit count. */
export function reportedCachedTokens(usage: Record_): number | undefined {
  return num(obj(usage.prompt_tokens_details)?.cached_tokens) ?? num(usage.prompt_cache_hit_tokens);
}

/** Rule 1: a provider-returned cost wins. A zero `cost` with an upstream cost (bring-your-own-key) uses the upstream one. */
export function providerCost(usage: Record_): number | undefined {
  const cost = num(usage.cost);
  const upstream = num(obj(usage.cost_details)?.upstream_inference_cost);
  if (cost !== undefined && cost > 0) return cost;
  return upstream ?? cost;
}

/** Rule 2 and 3: cost from complete token_rates (input and completion; cached falls back to input). */
export function rateCost(rates: ProviderSettings["token_rates"], prompt: number, cached: number, completion: number): number | undefined {
  if (!rates || rates.input === undefined || rates.completion === undefined) return undefined;
  const cachedRate = rates.cached ?? rates.input;
  return ((prompt - cached) * rates.input + cached * cachedRate + completion * rates.completion) / 1_000_000;
}

/**
 * The metadata fields for one generation's usage. `history` is the conversation sent with the request, used
 * only by the cached-token estimate (enabled by estimate_cached_tokens, and only when nothing was reported).
 */
export function usageMetadata(rawUsage: unknown, settings: ProviderSettings, history: Message[]): Record_ {
  const usage = obj(rawUsage);
  if (!usage) return {};
  const out: Record_ = { usage };
  const prompt = num(usage.prompt_tokens);
  const completion = num(usage.completion_tokens);
  const total = num(usage.total_tokens) ?? (prompt !== undefined && completion !== undefined ? prompt + completion : undefined);
  const reasoning = num(obj(usage.completion_tokens_details)?.reasoning_tokens);
  setCount(out, "usage_prompt_tokens", prompt);
  setCount(out, "usage_completion_tokens", completion);
  setCount(out, "usage_total_tokens", total);
  setCount(out, "usage_reasoning_tokens", reasoning);

  const reported = reportedCachedTokens(usage);
  // Clamped to the prompt total before any cost is computed (rule 3).
  const clampedReported = reported === undefined ? undefined : Math.min(Math.max(reported, 0), prompt ?? reported);
  setCount(out, "usage_cached_tokens", clampedReported);
  let cached = clampedReported;
  if (cached === undefined && settings.estimate_cached_tokens && prompt !== undefined) {
    const estimate = Math.min(estimateCachedTokens(history, prompt), prompt);
    setCount(out, "usage_estimated_cached_tokens", estimate);
    cached = estimate;
  }

  const fromProvider = providerCost(usage);
  const cost = fromProvider ?? (prompt !== undefined && completion !== undefined ? rateCost(settings.token_rates, prompt, cached ?? 0, completion) : undefined);
  if (cost !== undefined) {
    out.usage_cost = cost;
    out.usage_cost_formatted = formatCost(cost);
    out.usage_cost_source = fromProvider !== undefined ? "provider" : "token_rates";
  }
  return out;
}

function setCount(out: Record_, key: string, value: number | undefined): void {
  if (value === undefined) return;
  out[key] = value;
  out[`${key}_formatted`] = formatTokens(value);
}
