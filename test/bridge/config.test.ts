// The bridge's config (docs/bridge.md "Configuration", B71): every default written once, in bridgeConfigSchema, and
// reached the same way from the environment and from code; a bad variable is refused in one line naming it, and an
// unknown or invalid key of a config built in code is an error naming the key.
import { describe, expect, it } from "vitest";
import { bridgeConfigSchema, defaultBridgeConfig, loadBridgeConfig, type BridgeConfig } from "../../bridge/config.ts";

/** A descriptor limit high enough that the socket cap it derives is the schema's default. */
const FD_LIMIT = 10_000_000;

describe("bridge config (B71)", () => {
  it("takes the same defaults from an empty environment as from code", () => {
    expect(loadBridgeConfig({}, FD_LIMIT)).toEqual(defaultBridgeConfig({ dataDir: "data/bridge" }));
    expect(loadBridgeConfig({ DATA_DIR: "/srv/chat", HOST: "0.0.0.0", BRIDGE_PORT: "4100" }, FD_LIMIT)).toMatchObject({
      dataDir: "/srv/chat/bridge",
      host: "0.0.0.0",
      port: 4100,
    });
  });

  it.each([
    ["HOST", ""],
    ["BRIDGE_PORT", "70000"],
    ["BRIDGE_REPLAY_EVENTS", "-1"],
    ["BRIDGE_REPLAY_BYTES", "lots"],
    ["BRIDGE_MAX_SOCKETS", "0"],
    ["BRIDGE_MAX_SOCKETS_PER_DEVICE", "x"],
    ["BRIDGE_MAX_SERVERS", "1.5"],
    ["DATA_DIR", ""],
  ])("refuses %s=%j in one line naming the variable", (variable, value) => {
    expect(() => loadBridgeConfig({ [variable]: value }, FD_LIMIT)).toThrow(new RegExp(`^${variable}: [^\\n]+$`));
  });

  it("ignores variables it does not read: the environment is shared with the server and the shell", () => {
    expect(loadBridgeConfig({ BRIDGE_URL: "ws://elsewhere/socket", PATH: "/bin" }, FD_LIMIT)).toEqual(
      loadBridgeConfig({}, FD_LIMIT),
    );
  });

  it("refuses an unknown key in a config built in code, naming it", () => {
    const typo = { dataDir: "d", maxSocket: 5 } as unknown as BridgeConfig;
    expect(() => defaultBridgeConfig(typo)).toThrow(/^bridge config maxSocket: /);
  });

  it("refuses an invalid value in a config built in code, naming its key", () => {
    expect(() => defaultBridgeConfig({ dataDir: "d", idleTimeoutMs: -1 })).toThrow(/^bridge config idleTimeoutMs: /);
    expect(() => defaultBridgeConfig({ dataDir: "d", port: 1.5 })).toThrow(/^bridge config port: /);
  });

  it("has a default for every key but dataDir (and publicUrl, whose absence means the listening URL)", () => {
    const keys = Object.keys(bridgeConfigSchema.shape).filter((key) => key !== "dataDir" && key !== "publicUrl");
    const built = defaultBridgeConfig({ dataDir: "d" });
    expect(keys.filter((key) => built[key as keyof BridgeConfig] === undefined)).toEqual([]);
    expect(Object.keys(built).sort()).toEqual([...keys, "dataDir"].sort());
  });
});
