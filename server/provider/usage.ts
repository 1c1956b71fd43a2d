// Usage metadata and cost (docs/provider.md "Usage and cost rules"). The raw usage object is kept as sent
// (extra fields stay inside); flat fields and `_formatted` variants are derived for footers and totals.
import type { Message } from "../../client/wire/messages.ts";
import { estimateCachedTokens } from "./cache-estimate.ts";
import type { ProviderSettings } from "./settings.ts";

type Record_ = Record<string, unknown>;

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;
const obj = (value: unknown): Record_ | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record_) : undefined;

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

/** xAI's `cost_in_usd_ticks`: 10^10 ticks are one US dollar (docs.x.ai, "Cost Tracking"). */
const TICKS_PER_USD = 1e10;

/**
 * Rule 1: a provider-returned cost wins. A zero `cost` with an upstream cost (bring-your-own-key) uses the upstream
 * one; xAI's `cost_in_usd_ticks` (what was billed, discounts included) counts as a provider cost too.
 */
export function providerCost(usage: Record_): number | undefined {
  const cost = num(usage.cost);
  const upstream = num(obj(usage.cost_details)?.upstream_inference_cost);
  const ticks = num(usage.cost_in_usd_ticks);
  if (cost !== undefined && cost > 0) return cost;
  return upstream ?? (ticks === undefined ? undefined : ticks / TICKS_PER_USD) ?? cost;
}

/**
 * Reasoning tokens counted outside completion_tokens (xAI, Gemini: total = prompt + completion + reasoning): what
 * the total holds beyond prompt and completion. 0 when reasoning is inside completion_tokens (OpenAI and most
 * others: total = prompt + completion) or when no total is reported.
 */
export function hiddenReasoningTokens(
  prompt: number | undefined,
  completion: number | undefined,
  total: number | undefined,
): number {
  if (prompt === undefined || completion === undefined || total === undefined) return 0;
  return Math.max(0, total - prompt - completion);
}

/** Rule 2 and 3: cost from complete token_rates (input and completion; cached falls back to input). */
export function rateCost(
  rates: ProviderSettings["token_rates"],
  prompt: number,
  cached: number,
  completion: number,
): number | undefined {
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
  const reportedTotal = num(usage.total_tokens);
  const total = reportedTotal ?? (prompt !== undefined && completion !== undefined ? prompt + completion : undefined);
  const hidden = hiddenReasoningTokens(prompt, completion, reportedTotal);
  // Gemini may report the hidden reasoning only through the total.
  const reasoning = num(obj(usage.completion_tokens_details)?.reasoning_tokens) ?? (hidden > 0 ? hidden : undefined);
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
  // Reasoning tokens are generated output and billed at the completion rate wherever the backend counts them:
  // hidden ones are added to completion_tokens, so both report styles cost the same for the same generation.
  const billedCompletion = completion === undefined ? undefined : completion + hidden;
  const cost =
    fromProvider ??
    (prompt !== undefined && billedCompletion !== undefined
      ? rateCost(settings.token_rates, prompt, cached ?? 0, billedCompletion)
      : undefined);
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
