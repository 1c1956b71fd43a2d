// The provider settings (docs/provider.md "Provider settings"): defaults, delay-list forms, refusals with the key's path, agent overrides.
import { describe, expect, it } from "vitest";
import { resolveAgents } from "../../server/config/agents.ts";
import { parseConfig } from "../../server/config/load.ts";
import { providerSettingsSchema, selectEndpoint } from "../../server/provider/settings.ts";

const base = { provider: "reference_compatible", model: "m" } as const;

describe("provider settings", () => {
  it("fills every default of the provider table", () => {
    expect(providerSettingsSchema.parse(base)).toMatchObject({
      timeout: 60,
      debug_stream: false,
      min_request_interval_seconds: 0,
      rate_limit_retry_delays_seconds: [],
      respect_retry_after_header: true,
      retry_on_status: {},
      retry_on_timeout: [],
      stream_recovery: { mode: "disabled", max_retries: 3 },
      allow_image_attachment_base64: true,
      allow_image_attachment_url: true,
      show_usage: true,
      estimate_cached_tokens: false,
      show_estimated_cached_tokens: false,
      include_usage_in_stream: true,
    });
  });

  it("accepts delay lists as arrays or comma-separated strings, and status-string keys", () => {
    const s = providerSettingsSchema.parse({
      ...base,
      retry_on_timeout: "1, 2.5,5",
      rate_limit_retry_delays_seconds: [3],
      retry_on_status: { "503": "1,2" },
    });
    expect([s.retry_on_timeout, s.rate_limit_retry_delays_seconds, s.retry_on_status]).toEqual([
      [1, 2.5, 5],
      [3],
      { "503": [1, 2] },
    ]);
  });

  it.each([
    [{ retry_on_timeout: "1, soon" }, "providers.p.retry_on_timeout"],
    [{ retry_on_status: { "5xx": [1] } }, "providers.p.retry_on_status.5xx"],
    [{ stream_recovery: { mode: "sometimes" } }, "providers.p.stream_recovery.mode"],
    [
      { request_options_ui: { effort: { type: "slider", options: ["a"] } } },
      "providers.p.request_options_ui.effort.type",
    ],
    [
      { request_options: { effort: "mid" }, request_options_ui: { effort: { type: "select", options: ["low"] } } },
      "providers.p.request_options.effort",
    ],
    [{ request_options: { model: "x" } }, "providers.p.request_options.model"],
    [{ timeout: -1 }, "providers.p.timeout"],
  ])("refuses %j naming %s", (bad, path) => {
    expect(() => parseConfig({ providers: { p: { ...base, ...bad } } })).toThrow(`config error at ${path}`);
  });

  it("applies agent overrides over the provider, validated with the agent's path", () => {
    const config = parseConfig({
      providers: { p: { ...base, timeout: 10 } },
      agents: { a: { provider_id: "p", timeout: 5, model: "n" }, b: { provider_id: "p" } },
    });
    const agents = resolveAgents(config);
    expect([
      agents.get("a")!.settings.timeout,
      agents.get("a")!.settings.model,
      agents.get("b")!.settings.timeout,
    ]).toEqual([5, "n", 10]);
    expect(() => parseConfig({ providers: { p: base }, agents: { a: { provider_id: "p", timeout: "slow" } } })).toThrow(
      "agents.a.timeout",
    );
  });

  it("choosing an endpoint label sets base_url", () => {
    const s = providerSettingsSchema.parse({ ...base, endpoint_options: { lan: "http://10.0.0.2:8080/v1" } });
    expect(selectEndpoint(s, "lan").base_url).toBe("http://10.0.0.2:8080/v1");
    expect(() => selectEndpoint(s, "wan")).toThrow('unknown endpoint "wan"');
  });
});
