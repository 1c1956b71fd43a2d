// mcp_servers in the config (server/mcp/config.ts) and the approval policy (server/mcp/policy.ts): defaults, the
// one-of command/url rule, names that keep `mcp__<server>__<tool>` unambiguous, and who asks under each mode.
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../server/config/load.ts";
import { needsApproval } from "../../server/mcp/policy.ts";
import { agentReaches, invalidNameReason } from "../../server/mcp/names.ts";

const parse = (servers: unknown) => parseConfig({ mcp_servers: servers });

describe("mcp_servers config", () => {
  it("fills the defaults of a stdio and an HTTP server", () => {
    const config = parse({
      files: { command: "npx", args: ["-y", "x"] },
      web: { url: "https://tools.example.com/mcp" },
    });
    expect(config.mcp_servers.files).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "x"],
      env: {},
      timeout_seconds: 60,
      approval_timeout_seconds: 600,
      max_result_bytes: 102400,
      max_message_bytes: 4194304,
    });
    expect(config.mcp_servers.web).toMatchObject({
      transport: "http",
      url: "https://tools.example.com/mcp",
      headers: {},
    });
    expect(parseConfig({}).mcp_servers).toEqual({});
  });

  it("refuses a server with neither or both of command and url, an unknown key, a bad name, a bad mode", () => {
    expect(() => parse({ a: {} })).toThrow(ConfigError);
    expect(() => parse({ a: { command: "x", url: "http://127.0.0.1:1/mcp" } })).toThrow(/mcp_servers\.a/);
    expect(() => parse({ a: { command: "x", commnd: "y" } })).toThrow(/mcp_servers\.a/);
    expect(() => parse({ a: { url: "ftp://example.com" } })).toThrow(/mcp_servers\.a/);
    for (const name of ["a__b", "_a", "a_", "a.b", "x".repeat(41)])
      expect(() => parse({ [name]: { command: "x" } }), name).toThrow(ConfigError);
    for (const name of ["files", "my-notes", "home_db", "A1"])
      expect(() => parse({ [name]: { command: "x" } })).not.toThrow();
    expect(() => parse({ a: { command: "x", require_approval: "sometimes" } })).toThrow(/require_approval/);
    expect(() => parse({ a: { command: "x", require_approval: { write: "ask" } } })).toThrow(/require_approval/);
  });
});

describe("approval policy", () => {
  const stdio = (require_approval?: unknown) =>
    parse({ s: { command: "x", ...(require_approval ? { require_approval } : {}) } }).mcp_servers.s!;
  const http = (require_approval?: unknown) =>
    parse({ h: { url: "http://127.0.0.1:1/mcp", ...(require_approval ? { require_approval } : {}) } }).mcp_servers.h!;
  const safe = { readOnlyHint: true, openWorldHint: false };

  it("auto (stdio's default) runs only tools stated read-only and closed-world", () => {
    expect(needsApproval(stdio(), "t", safe)).toBe(false);
    expect(needsApproval(stdio(), "t", { readOnlyHint: true })).toBe(true);
    expect(needsApproval(stdio(), "t", { readOnlyHint: true, openWorldHint: true })).toBe(true);
    expect(needsApproval(stdio(), "t", { readOnlyHint: false, openWorldHint: false })).toBe(true);
    expect(needsApproval(stdio(), "t", undefined)).toBe(true);
  });

  it("an HTTP server asks by default and under auto, whatever its hints; never and per-tool modes are obeyed", () => {
    expect(needsApproval(http(), "t", safe)).toBe(true);
    expect(needsApproval(http("auto"), "t", safe)).toBe(true);
    expect(needsApproval(http("never"), "t", undefined)).toBe(false);
    expect(needsApproval(stdio("always"), "t", safe)).toBe(true);
    expect(needsApproval(stdio({ t: "never" }), "t", undefined)).toBe(false);
    expect(needsApproval(stdio({ t: "never" }), "other", safe)).toBe(false);
    expect(needsApproval(stdio({ t: "never" }), "other", undefined)).toBe(true);
  });
});

describe("names", () => {
  it("accepts 64 valid characters at most, and an agent reaches a tool by its name or its server's wildcard", () => {
    expect(invalidNameReason(`mcp__s__${"a".repeat(56)}`)).toBeUndefined();
    expect(invalidNameReason(`mcp__s__${"a".repeat(57)}`)).toMatch(/longer than 64/);
    expect(invalidNameReason("mcp__s__a b")).toMatch(/characters/);
    expect(agentReaches(["mcp__s__*"], "s", "mcp__s__x")).toBe(true);
    expect(agentReaches(["mcp__s__x"], "s", "mcp__s__x")).toBe(true);
    expect(agentReaches(["mcp__t__*", "mcp__s__y"], "s", "mcp__s__x")).toBe(false);
    expect(agentReaches(undefined, "s", "mcp__s__x")).toBe(false);
  });
});
