// The socket cap's default follows the process's file-descriptor limit (docs/bridge.md "Slow consumers and limits",
// B36): a bridge flooded with sockets answers its documented 503, and /health, instead of resets once descriptors
// run out. Proven on a real bridge process started under a small `ulimit -n`.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loadBridgeConfig } from "../../bridge/config.ts";
import { DEFAULT_MAX_SOCKETS, readFdLimit, socketCapFor } from "../../bridge/socket/fd-limit.ts";
import { cleanups, runCleanups, tempDir, until } from "./helpers.ts";

afterEach(runCleanups);

/** A child bridge compiles its TypeScript as it starts: on a loaded machine that alone took ~18 s. */
const PROCESS_TEST_MS = 90_000;

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
`;

describe("the default socket cap", () => {
  it("is the descriptor limit less headroom, at most 100,000; BRIDGE_MAX_SOCKETS and BRIDGE_MAX_SOCKETS_PER_DEVICE override", () => {
    expect(readFdLimit(() => LIMITS)).toBe(1024);
    expect(
      readFdLimit(() => "Max open files            unlimited            unlimited            files\n"),
    ).toBeUndefined();
    expect(
      readFdLimit(() => {
        throw new Error("ENOENT");
      }),
    ).toBeUndefined();
    expect(typeof readFdLimit()).toBe(process.platform === "linux" ? "number" : "undefined");
    expect([
      socketCapFor(1024),
      socketCapFor(160),
      socketCapFor(20_000),
      socketCapFor(10_000_000),
      socketCapFor(undefined),
      socketCapFor(10),
    ]).toEqual([921, 96, 18_000, DEFAULT_MAX_SOCKETS, DEFAULT_MAX_SOCKETS, 1]);
    expect(loadBridgeConfig({}, 1024)).toMatchObject({ maxSockets: 921, maxSocketsPerDevice: 8 });
    expect(loadBridgeConfig({ BRIDGE_MAX_SOCKETS: "5000", BRIDGE_MAX_SOCKETS_PER_DEVICE: "2" }, 1024)).toMatchObject({
      maxSockets: 5000,
      maxSocketsPerDevice: 2,
    });
    expect(() => loadBridgeConfig({ BRIDGE_MAX_SOCKETS_PER_DEVICE: "0" })).toThrow(/^BRIDGE_MAX_SOCKETS_PER_DEVICE: /);
  });

  it(
    "answers 503 and /health, never resets, when sockets would outrun the descriptor limit (B36)",
    { timeout: PROCESS_TEST_MS },
    async () => {
      const bridge = await bridgeProcess(160);
      // Unpaired sockets are capped at 32 per address: five loopback addresses get past that to the total cap.
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) statuses.push(await upgrade(bridge.url, `127.0.0.${1 + (i % 5)}`));
      const count = (status: number) => statuses.filter((s) => s === status).length;
      expect({ opened: count(101), full: count(503), other: statuses.length - count(101) - count(503) }).toEqual({
        opened: 96,
        full: 104,
        other: 0,
      });
      const health = await fetch(`${bridge.httpUrl}/health`);
      expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    },
  );
});

describe("the bridge process's log", () => {
  it("loses its log, not its life, when stdout's reader goes away (EPIPE)", { timeout: PROCESS_TEST_MS }, async () => {
    const bridge = await bridgeProcess(1024);
    bridge.child.stdout!.destroy();
    // Each malformed frame writes a log line into the closed pipe.
    for (let i = 0; i < 3; i++) {
      const ws = new WebSocket(`${bridge.url}/websocket?vsn=2.0.0`);
      cleanups.push(() => ws.terminate());
      ws.on("error", () => undefined);
      await once(ws, "open");
      ws.send("not a frame");
      await once(ws, "close");
    }
    const health = await fetch(`${bridge.httpUrl}/health`);
    expect([health.status, bridge.child.exitCode]).toEqual([200, null]);
  });
});

/** Runs `npm run bridge`'s entry in a child whose descriptor limit is `fdLimit`; resolves once it listens. */
async function bridgeProcess(fdLimit: number): Promise<{ url: string; httpUrl: string; child: ChildProcess }> {
  const child: ChildProcess = spawn("bash", ["-c", `ulimit -n ${fdLimit} && exec node --import tsx bridge/main.ts`], {
    env: { ...withoutSocketCap(process.env), BRIDGE_PORT: "0", HOST: "127.0.0.1", DATA_DIR: tempDir() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  });
  // Its log is read to the end (until a test closes it).
  let output = "";
  child.stdout!.on("data", (chunk) => void (output += String(chunk)));
  const listening = /bridge listening on (ws:\/\/\S+) \(health and metrics on (http:\/\/\S+)\)/;
  await until(() => listening.test(output) || child.exitCode !== null, "the bridge process listens", PROCESS_TEST_MS);
  const match = listening.exec(output);
  if (!match) throw new Error(`the bridge did not start: ${output}`);
  return { url: match[1]!, httpUrl: match[2]!, child };
}

function withoutSocketCap(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { BRIDGE_MAX_SOCKETS: _ignored, ...rest } = env;
  return rest;
}

/** Opens a raw socket from `localAddress`; the upgrade's status, 101 once open, -1 for a reset or a dropped connection. */
function upgrade(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}/websocket?vsn=2.0.0`, { localAddress });
    cleanups.push(() => ws.terminate());
    ws.once("open", () => resolve(101));
    ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    ws.once("error", () => resolve(-1));
  });
}
