// The provider configuration (docs/provider.md "Provider settings"): one flat dictionary under `providers.<provider_id>`, any key of
// which an agent may override. Every key, its type and its default live here and nowhere else.
import { z } from "zod";
import { webUrl } from "../config/web-url.ts";

/** A delay list: an array of seconds, or the same as a comma-separated string ("1, 2.5, 5"). */
export const delayListSchema = z
  .union([
    z.array(z.number().nonnegative().finite()),
    z.string().transform((text, ctx) => {
      const parts = text
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");
      const delays = parts.map(Number);
      if (delays.some((d) => !Number.isFinite(d) || d < 0)) {
        ctx.addIssue({ code: "custom", message: `"${text}" is not a comma-separated list of non-negative seconds` });
        return z.NEVER;
      }
      return delays;
    }),
  ])
  .default([]);

const statusKey = z.string().regex(/^[1-5]\d\d$/, 'must be an HTTP status code such as "503"');

export const streamRecoverySchema = z
  .object({
    mode: z.enum(["disabled", "early_only", "aggressive"]).default("disabled"),
    max_retries: z.number().int().nonnegative().default(3),
  })
  .strict()
  .default({ mode: "disabled", max_retries: 3 });

export const requestOptionUiSchema = z
  .object({
    type: z.literal("select"),
    options: z.array(z.string()).min(1),
    rich_ui: z.boolean().default(false),
  })
  .strict();

export type RequestOptionUi = z.infer<typeof requestOptionUiSchema>;

/**
 * Whether `value` may be sent for an option with this descriptor: a string among its options. Nothing is
 * coerced: `["low"]` or `{toString}` is not "low" (String() would accept the one and throw on the other).
 */
export function isAllowedOption(descriptor: RequestOptionUi, value: unknown): boolean {
  return typeof value === "string" && descriptor.options.includes(value);
}

/** The value as a refusal names it, without calling anything on it (String({toString: 1}) throws). */
export function describeOptionValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
    case "number":
    case "boolean":
      return `the ${typeof value} ${value}`;
    default:
      if (value === null) return "null";
      if (Array.isArray(value)) return "an array";
      return typeof value === "object" ? "an object" : `a ${typeof value}`;
  }
}

/** Own keys only: a key named like an Object.prototype member (`constructor`, `toString`) is not set by inheritance. */
function ownValue<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export const tokenRatesSchema = z
  .object({
    input: z.number().nonnegative().optional(),
    cached: z.number().nonnegative().optional(),
    completion: z.number().nonnegative().optional(),
  })
  .strict();

/** Every provider key with its default. `provider` is the selector and is not overridable per agent. */
export const providerKeys = {
  model: z.string().min(1),
  base_url: webUrl("base_url").default("https://api.openai.com/v1"),
  endpoint_options: z.record(z.string(), webUrl("an endpoint option")).optional(),
  api_key: z.string().min(1).optional(),
  timeout: z.number().positive().default(60),
  debug_stream: z.boolean().default(false),
  min_request_interval_seconds: z.number().nonnegative().default(0),
  rate_limit_retry_delays_seconds: delayListSchema,
  respect_retry_after_header: z.boolean().default(true),
  retry_on_status: z.record(statusKey, delayListSchema).default({}),
  retry_on_timeout: delayListSchema,
  stream_recovery: streamRecoverySchema,
  allow_image_attachment_base64: z.boolean().default(true),
  allow_image_attachment_url: z.boolean().default(true),
  request_options: z.record(z.string(), z.unknown()).default({}),
  request_options_ui: z.record(z.string(), requestOptionUiSchema).default({}),
  show_usage: z.boolean().default(true),
  token_rates: tokenRatesSchema.optional(),
  estimate_cached_tokens: z.boolean().default(false),
  show_estimated_cached_tokens: z.boolean().default(false),
  /** Send `stream_options.include_usage` on streamed requests. Default true; turn off for servers that answer 400 to unknown fields. */
  include_usage_in_stream: z.boolean().default(true),
  /**
   * Once a stream has begun (first body byte), the longest silence tolerated between received bytes, keep-alive
   * comments included. Unset: the same as `timeout`. Our addition: without it a silent stream hangs forever.
   */
  stream_idle_timeout_seconds: z.number().positive().optional(),
};

/** Payload fields the adapter owns: request_options may not replace them. */
export const RESERVED_REQUEST_FIELDS = ["model", "messages", "stream", "tools"] as const;

/** What only a provider has (not an agent): the models people may pick (absent: every model) and the default. */
const providerOnlyKeys = {
  models: z.array(z.string().min(1).max(200)).max(1000).optional(),
  default_model: z.string().min(1).max(200).optional(),
};

const providerObjectSchema = z
  .object({ provider: z.literal("reference_compatible"), ...providerKeys, ...providerOnlyKeys })
  .strict()
  .superRefine((settings, ctx) => {
    if (settings.default_model !== undefined && settings.models && !settings.models.includes(settings.default_model))
      ctx.addIssue({ code: "custom", path: ["default_model"], message: "must be one of models" });
    for (const key of RESERVED_REQUEST_FIELDS) {
      if (Object.hasOwn(settings.request_options, key)) {
        ctx.addIssue({
          code: "custom",
          path: ["request_options", key],
          message: `"${key}" is set by the provider and cannot be a request option`,
        });
      }
    }
    // A configured value for a select option must be one of its choices, or the UI could not render it.
    for (const [name, descriptor] of Object.entries(settings.request_options_ui)) {
      const value = ownValue(settings.request_options, name);
      if (value !== undefined && !isAllowedOption(descriptor, value)) {
        ctx.addIssue({
          code: "custom",
          path: ["request_options", name],
          message: `must be one of ${descriptor.options.join(", ")} (request_options_ui.${name})`,
        });
      }
    }
  });

/**
 * A provider's settings. `model` may be left out when `default_model` names one: the default is then the model its
 * agents use (a backend added in the app's Connections gets only a default_model).
 */
export const providerSettingsSchema = z.preprocess(
  (value) =>
    isRecord(value) && value.model === undefined && typeof value.default_model === "string"
      ? { ...value, model: value.default_model }
      : value,
  providerObjectSchema,
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type ProviderSettings = z.infer<typeof providerSettingsSchema>;
export type ProviderSettingsInput = z.input<typeof providerObjectSchema>;

/** The same keys, all optional and without defaults: what an agent may override. */
export const providerOverridesSchema = z.object(
  Object.fromEntries(Object.entries(providerKeys).map(([k, s]) => [k, unwrapDefault(s).optional()])) as {
    [K in keyof typeof providerKeys]: z.ZodOptional<
      z.ZodType<z.output<(typeof providerKeys)[K]>, z.input<(typeof providerKeys)[K]>>
    >;
  },
);

function unwrapDefault(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema;
}

/** The URL prefix every request, discovery call and pacing scope derives from: base_url without trailing slashes. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** Choosing an endpoint label sets base_url directly (docs/provider.md "Provider settings"). Unknown labels are refused. */
export function selectEndpoint(settings: ProviderSettings, label: string): ProviderSettings {
  const url = ownValue(settings.endpoint_options, label);
  if (url === undefined) {
    const known = Object.keys(settings.endpoint_options ?? {});
    throw new Error(
      `unknown endpoint "${label}"; endpoint_options has ${known.length ? known.join(", ") : "no labels"}`,
    );
  }
  return { ...settings, base_url: url };
}

/** The label of endpoint_options whose URL is the current base_url, if any. */
export function currentEndpointLabel(settings: ProviderSettings): string | undefined {
  const base = normalizeBaseUrl(settings.base_url);
  return Object.entries(settings.endpoint_options ?? {}).find(([, url]) => normalizeBaseUrl(url) === base)?.[0];
}
