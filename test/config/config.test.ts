import { describe, expect, it } from "vitest";
import { resolveAgents } from "../../server/config/agents.ts";
import { ConfigError, parseConfig, readEnvironment } from "../../server/config/load.ts";

const provider = { provider: "reference_compatible", model: "m", base_url: "http://127.0.0.1:8080/v1" };

function errorOf(json: unknown): string {
  try {
    resolveAgents(parseConfig(json));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a config error");
}

describe("config file", () => {
  it("refuses unknown keys with their path", () => {
    expect(errorOf({ servr: {} })).toBe("config error at servr: unknown key");
    expect(errorOf({ providers: { p: { ...provider, tiemout: 5 } } })).toBe(
      "config error at providers.p.tiemout: unknown key",
    );
    expect(errorOf({ events: { retention: 1 } })).toBe("config error at events.retention: unknown key");
  });

  // Every object of the config file, so a new object that forgets .strict() is caught here.
  it.each([
    ["(root)", { extra: 1 }, "extra"],
    ["server", { server: { extra: 1 } }, "server.extra"],
    ["providers.<id>", { providers: { p: { ...provider, extra: 1 } } }, "providers.p.extra"],
    ["agents.<id>", { providers: { p: provider }, agents: { a: { provider_id: "p", extra: 1 } } }, "agents.a.extra"],
    ["application", { application: { extra: 1 } }, "application.extra"],
    ["application.notifications", { application: { notifications: { extra: 1 } } }, "application.notifications.extra"],
    ["events", { events: { extra: 1 } }, "events.extra"],
    ["runner", { runner: { extra: 1 } }, "runner.extra"],
    ["assets", { assets: { extra: 1 } }, "assets.extra"],
  ])("refuses an unknown key in %s", (_object, json, path) => {
    expect(errorOf(json)).toBe(`config error at ${path}: unknown key`);
  });

  it("gives an absent object the same defaults as an empty one, written once on the keys", () => {
    const empty = parseConfig({ server: {}, application: { notifications: {} }, events: {}, runner: {}, assets: {} });
    expect(parseConfig({})).toEqual(empty);
    expect(parseConfig({ application: {} })).toEqual(empty);
    expect(empty).toMatchObject({
      application: { notifications: { history_limit: 1000 } },
      events: { retention_max_events: 1_000_000, max_page_size: 1000 },
      runner: { max_tool_iterations: 8 },
      assets: { max_bytes: 10 * 1024 * 1024 },
    });
  });

  it("reads max_items as history_limit, which wins when both are set", () => {
    expect(parseConfig({ application: { notifications: { max_items: 5 } } }).application.notifications).toEqual({
      history_limit: 5,
    });
    expect(
      parseConfig({ application: { notifications: { max_items: 5, history_limit: 7 } } }).application.notifications,
    ).toEqual({ history_limit: 7 });
  });

  it("refuses wrong types with their path", () => {
    expect(errorOf({ providers: { p: { ...provider, timeout: "fast" } } })).toMatch(
      /^config error at providers\.p\.timeout: /,
    );
    expect(errorOf({ providers: { p: { ...provider, retry_on_status: { abc: [1] } } } })).toMatch(
      /^config error at providers\.p\.retry_on_status\.abc/,
    );
    expect(errorOf({ providers: { p: { ...provider, rate_limit_retry_delays_seconds: "1, x" } } })).toMatch(
      /rate_limit_retry_delays_seconds/,
    );
    expect(errorOf({ application: { notifications: { history_limit: -1 } } })).toMatch(
      /^config error at application\.notifications\.history_limit/,
    );
  });

  it("refuses an agent whose provider does not exist, or whose override is invalid", () => {
    expect(errorOf({ providers: { p: provider }, agents: { a: { provider_id: "q" } } })).toBe(
      'config error at agents.a.provider_id: no provider "q" in providers',
    );
    expect(errorOf({ providers: { p: provider }, agents: { a: { provider_id: "p", timeout: -1 } } })).toMatch(
      /^config error at agents\.a\.timeout/,
    );
  });

  it("applies defaults, delay-list strings and per-agent overrides", () => {
    const agents = resolveAgents(
      parseConfig({
        providers: { p: { ...provider, rate_limit_retry_delays_seconds: "1, 2.5" } },
        agents: { a: { provider_id: "p", model: "other", timeout: 5, tools: ["clock"] }, b: { provider_id: "p" } },
      }),
    );
    expect(agents.get("a")!.settings).toMatchObject({
      model: "other",
      timeout: 5,
      rate_limit_retry_delays_seconds: [1, 2.5],
      stream_recovery: { mode: "disabled", max_retries: 3 },
    });
    expect(agents.get("a")!.tools).toEqual(["clock"]);
    expect(agents.get("b")!.settings).toMatchObject({
      model: "m",
      timeout: 60,
      min_request_interval_seconds: 0,
      retry_on_status: {},
    });
  });

  it("has a default agent when the config defines none", () => {
    expect([...resolveAgents(parseConfig({})).keys()]).toEqual(["default"]);
    expect([...resolveAgents(parseConfig({ providers: { x: provider } })).values()][0]).toMatchObject({
      agent_id: "default",
      provider_id: "x",
    });
  });
});

describe("environment", () => {
  it("uses the documented defaults and refuses a bad port", () => {
    expect(readEnvironment({})).toMatchObject({
      host: "127.0.0.1",
      port: 8787,
      bridgePort: 4000,
      bridgeUrl: "ws://127.0.0.1:4000/socket",
    });
    expect(readEnvironment({ BRIDGE_URL: "" }).bridgeUrl).toBe("");
    expect(() => readEnvironment({ PORT: "http" })).toThrow(/PORT/);
  });

  it("points BRIDGE_URL's default at BRIDGE_PORT, and an explicit BRIDGE_URL wins", () => {
    expect(readEnvironment({ BRIDGE_PORT: "5000" }).bridgeUrl).toBe("ws://127.0.0.1:5000/socket");
    expect(readEnvironment({ BRIDGE_PORT: "5000", BRIDGE_URL: "ws://relay.lan:4000/socket" }).bridgeUrl).toBe(
      "ws://relay.lan:4000/socket",
    );
  });
});
