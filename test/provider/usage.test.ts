// Usage metadata, cost rules 1-3 and the cached-token estimation of rule 4 (one table row per branch).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import type { Message } from "../../client/wire/messages.ts";
import { estimateCachedTokens } from "../../server/provider/cache-estimate.ts";
import { usageMetadata } from "../../server/provider/usage.ts";
import { makeProvider, settingsFor, user } from "./helpers.ts";

const gen = (prompt: number): Message => ({
  role: "assistant",
  content: "",
  metadata: { usage: { prompt_tokens: prompt } },
});
const tool: Message = { role: "tool", content: "result", metadata: { tool_call_id: "c" } };
const settings = (extra = {}) => settingsFor("http://127.0.0.1:1/v1", extra);

describe("cached-token estimation (usage rule 4)", () => {
  const table: Array<[string, Message[], number, number]> = [
    ["first generation: 0", [user("q")], 500, 0],
    ["same turn, previous input <= current: previous input", [user("q"), gen(1000), tool], 1200, 1000],
    ["same turn, previous input > current: 0", [user("q"), gen(1000), tool], 900, 0],
    [
      "same turn uses the preceding generation, not the first",
      [user("q"), gen(800), tool, gen(1000), tool],
      1100,
      1000,
    ],
    [
      "new turn, current > last input of the preceding turn: that last input",
      [user("a"), gen(1000), tool, gen(1400), user("b")],
      1500,
      1400,
    ],
    [
      "new turn, current <= last input but >= first input: first input",
      [user("a"), gen(1000), tool, gen(1400), user("b")],
      1200,
      1000,
    ],
    ["new turn, current below even the first input: 0", [user("a"), gen(1000), gen(1400), user("b")], 900, 0],
    ["new turn skips turns without generations", [user("a"), gen(600), user("b"), user("c")], 700, 600],
    [
      "tool results and usage-less assistant messages are ignored",
      [user("a"), { role: "assistant", content: "x" }, tool],
      700,
      0,
    ],
  ];
  it.each(table)("%s", (_name, history, current, expected) => {
    expect(estimateCachedTokens(history, current)).toBe(expected);
  });
});

describe("usage metadata and cost", () => {
  it("keeps the raw usage and adds flat and formatted fields", () => {
    const usage = {
      prompt_tokens: 12345,
      completion_tokens: 100,
      total_tokens: 12445,
      completion_tokens_details: { reasoning_tokens: 40 },
      extra: "kept",
    };
    expect(usageMetadata(usage, settings(), [])).toEqual({
      usage,
      usage_prompt_tokens: 12345,
      usage_prompt_tokens_formatted: "12,345",
      usage_completion_tokens: 100,
      usage_completion_tokens_formatted: "100",
      usage_total_tokens: 12445,
      usage_total_tokens_formatted: "12,445",
      usage_reasoning_tokens: 40,
      usage_reasoning_tokens_formatted: "40",
    });
  });

  it("rule 2/3: cost from complete token_rates, reported cached tokens clamped to the prompt total", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 5000 } };
    const meta = usageMetadata(usage, settings({ token_rates: { input: 2, cached: 1, completion: 10 } }), []);
    expect(meta.usage_cached_tokens).toBe(1000);
    expect(meta.usage_cost).toBeCloseTo((0 * 2 + 1000 * 1 + 500 * 10) / 1e6, 12);
    expect(meta.usage_cost_source).toBe("token_rates");
    expect(usage.prompt_tokens_details.cached_tokens).toBe(5000);
  });

  it("rule 3: without a cached rate, cached tokens use the input rate; incomplete rates give no cost", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 400 } };
    expect(usageMetadata(usage, settings({ token_rates: { input: 3, completion: 1 } }), []).usage_cost).toBeCloseTo(
      3000 / 1e6,
      12,
    );
    expect(usageMetadata(usage, settings({ token_rates: { input: 3 } }), [])).not.toHaveProperty("usage_cost");
  });

  it("rule 1: a provider-returned cost is authoritative; upstream_inference_cost when cost is zero", () => {
    const rates = settings({ token_rates: { input: 100, completion: 100 } });
    const meta = usageMetadata({ prompt_tokens: 10, completion_tokens: 10, cost: 0.0042 }, rates, []);
    expect([meta.usage_cost, meta.usage_cost_formatted, meta.usage_cost_source]).toEqual([
      0.0042,
      "$0.004200",
      "provider",
    ]);
    expect(
      usageMetadata(
        { prompt_tokens: 10, completion_tokens: 10, cost: 0, cost_details: { upstream_inference_cost: 0.01 } },
        rates,
        [],
      ).usage_cost,
    ).toBe(0.01);
  });

  it("rule 5: the estimate only when enabled and nothing reported; it feeds the cost, never usage.prompt_tokens_details", () => {
    const history = [user("a"), gen(800), user("b")];
    const rates = { token_rates: { input: 10, cached: 1, completion: 0 } };
    const off = usageMetadata({ prompt_tokens: 1000, completion_tokens: 0 }, settings(rates), history);
    expect(off).not.toHaveProperty("usage_estimated_cached_tokens");
    const usage = { prompt_tokens: 1000, completion_tokens: 0 };
    const on = usageMetadata(usage, settings({ ...rates, estimate_cached_tokens: true }), history);
    expect(on.usage_estimated_cached_tokens).toBe(800);
    expect(on.usage_estimated_cached_tokens_formatted).toBe("800");
    expect(on.usage_cost).toBeCloseTo((200 * 10 + 800 * 1) / 1e6, 12);
    expect(usage).toEqual({ prompt_tokens: 1000, completion_tokens: 0 });
    const reported = usageMetadata(
      { prompt_tokens: 1000, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 100 } },
      settings({ estimate_cached_tokens: true }),
      history,
    );
    expect(reported).not.toHaveProperty("usage_estimated_cached_tokens");
    expect(reported.usage_cached_tokens).toBe(100);
  });
});

describe("reasoning tokens outside completion_tokens (xAI, Gemini) and provider-native cost", () => {
  // One generation (1,000 prompt tokens, 200 visible + 300 reasoning tokens out) in each report style.
  const rates = { token_rates: { input: 1, completion: 2 } };
  const expectedCost = (1000 * 1 + 500 * 2) / 1e6;
  const styles = [
    [
      "reasoning inside completion_tokens (OpenAI)",
      "openai",
      {
        prompt_tokens: 1000,
        completion_tokens: 500,
        total_tokens: 1500,
        completion_tokens_details: { reasoning_tokens: 300 },
      },
    ],
    [
      "reasoning outside, with its count (xAI)",
      "xai",
      {
        prompt_tokens: 1000,
        completion_tokens: 200,
        total_tokens: 1500,
        completion_tokens_details: { reasoning_tokens: 300 },
      },
    ],
    [
      "reasoning outside, only in the total (Gemini)",
      "gemini",
      { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1500 },
    ],
  ] as const;

  let backend: ScriptedBackend;
  beforeAll(async () => {
    backend = await startScriptedBackend();
  });
  afterAll(() => backend.close());

  it.each(styles)("%s: reasoning is billed at the completion rate, once", async (_name, dialect, usage) => {
    backend.script(dialectStream(dialect, { content: "Noon.", usage }));
    const { done } = await makeProvider(settingsFor(backend.url, rates)).run();
    const meta = done!.message.metadata;
    expect(meta.usage_cost).toBeCloseTo(expectedCost, 12);
    expect(meta.usage_cost_source).toBe("token_rates");
    expect(meta.usage_reasoning_tokens).toBe(300);
    expect(meta.usage_completion_tokens).toBe(usage.completion_tokens);
    expect(meta.usage_total_tokens).toBe(1500);
  });

  it("xAI cost_in_usd_ticks (10^10 per USD) is authoritative, like usage.cost", async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1500, cost_in_usd_ticks: 37756000 };
    backend.script(dialectStream("xai", { content: "Noon.", usage }));
    const { done } = await makeProvider(settingsFor(backend.url, rates)).run();
    expect(done!.message.metadata.usage_cost).toBeCloseTo(0.0037756, 12);
    expect(done!.message.metadata.usage_cost_formatted).toBe("$0.003776");
    expect(done!.message.metadata.usage_cost_source).toBe("provider");
  });

  it("usage.cost above zero still wins over ticks; a zero cost gives way to them", () => {
    expect(usageMetadata({ cost: 0.5, cost_in_usd_ticks: 1e10 }, settings(), []).usage_cost).toBe(0.5);
    expect(usageMetadata({ cost: 0, cost_in_usd_ticks: 2e10 }, settings(), []).usage_cost).toBe(2);
  });
});
