// `npm start` as a user meets it (docs/security.md "npm start", "First run"): the real supervisor with the real
// server and bridge. Killing the bridge leaves the server answering and brings the bridge back; killing the server
// takes what it started with it (its process group) and brings it back without a second pairing link; SIGTERM stops
// everything. Not a terminal here, so the first-run link goes to DATA_DIR/pair-link.txt, 0600; the link pairs.
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { appConfigRoute, pair } from "../../client/index.ts";
import type { WebSocketConstructor } from "../../client/transport/bridge.ts";
import { parsePairUrl } from "../../client/wire/index.ts";
import { tempDir } from "../support/server.ts";
import { answers, freePort, goneWithin, isAlive, killAll, run, type Run } from "./support/processes.ts";

const NodeWebSocket = WebSocket as unknown as WebSocketConstructor;
const dirs: string[] = [];
const runs: Run[] = [];
afterEach(async () => {
  await killAll(runs);
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

// A plugin that starts a long-lived subprocess in the server's process group, and says its pid.
const SPAWNING_PLUGIN = `
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
export default { name: "spawner", setup() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(process.env.GRANDCHILD_PID_FILE, String(child.pid));
} };
`;

describe("npm start", { timeout: 180_000 }, () => {
  it("restarts a killed bridge while the server answers, takes a killed server's subprocesses with it, and stops on SIGTERM", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const [port, bridgePort] = [await freePort(), await freePort()];
    writeFileSync(join(dir, "spawner.mjs"), SPAWNING_PLUGIN);
    writeFileSync(join(dir, "config.json"), JSON.stringify({ plugins: ["./spawner.mjs"] }));
    const dataDir = join(dir, "data");
    const grandchildFile = join(dir, "grandchild.pid");
    const start = run(["scripts/start.ts"], {
      PORT: String(port),
      BRIDGE_PORT: String(bridgePort),
      DATA_DIR: dataDir,
      CONFIG: join(dir, "config.json"),
      ADMIN_TOKEN: "",
      GRANDCHILD_PID_FILE: grandchildFile,
    });
    runs.push(start);
    const server = `http://127.0.0.1:${port}`;
    const bridgeHealth = `http://127.0.0.1:${bridgePort}/health`;

    // First run: the link, in a private file, pairing at this server with this bridge.
    await start.waitFor(/pairing link written to (\S+)/);
    const linkFile = join(dataDir, "pair-link.txt");
    expect(statSync(linkFile).mode & 0o777).toBe(0o600);
    const bridgeUrl = encodeURIComponent(`ws://127.0.0.1:${bridgePort}/socket`);
    expect(readFileSync(linkFile, "utf8")).toMatch(
      new RegExp(`^Open ${server}/#/pair\\?code=[0-9A-Z]{5}-[0-9A-Z]{5}&bridge=${bridgeUrl.replace(/%/g, "%")}&key=`),
    );
    expect(start.output()).not.toMatch(/Open http/);
    await answers(bridgeHealth);
    // The link pairs: its code, bridge and key, through the real bridge to the real server, encrypted. As the app
    // does, the pairing names the server from /app-config.json: the server's link to the bridge may still be coming
    // up, and a code the bridge has not heard of yet is then retryable rather than refused.
    const link = parsePairUrl(readFileSync(linkFile, "utf8").match(/^Open (\S+)$/m)![1]!)!;
    const config = appConfigRoute.answer.parse(await (await fetch(`${server}${appConfigRoute.path}`)).json());
    expect(config.bridge_url).toBe(link.bridge);
    const credentials = await pair({
      bridgeUrl: link.bridge,
      code: link.code,
      serverKey: link.key!,
      serverId: config.server_id,
      deviceName: "this browser",
      WebSocket: NodeWebSocket,
    });
    expect(credentials.server_url).toBe(server);
    expect(credentials.e2e).toBeDefined();

    // The bridge dies: the server keeps answering, the bridge comes back under a new pid.
    const bridgePid = Number((await start.waitFor(/bridge started \(pid (\d+)\)/))[1]);
    const mark = start.output().length;
    process.kill(bridgePid, "SIGKILL");
    await start.waitFor(/bridge exited \(signal SIGKILL\); restarting in 0\.5 s/, mark);
    expect((await fetch(`${server}/health`)).status).toBe(200);
    const newBridgePid = Number((await start.waitFor(/bridge started \(pid (\d+)\)/, mark))[1]);
    expect(newBridgePid).not.toBe(bridgePid);
    expect(await (await answers(bridgeHealth)).json()).toMatchObject({ ok: true });

    // The server dies: what it started goes with its process group; it comes back, with no second link.
    const serverPid = Number((await start.waitFor(/server started \(pid (\d+)\)/))[1]);
    const grandchild = Number(readFileSync(grandchildFile, "utf8"));
    expect(isAlive(grandchild)).toBe(true);
    const mark2 = start.output().length;
    process.kill(serverPid, "SIGKILL");
    await start.waitFor(/server exited \(signal SIGKILL\); restarting in 0\.5 s/, mark2);
    expect(await goneWithin(grandchild)).toBe(true);
    await start.waitFor(/server listening on/, mark2);
    expect((await fetch(`${server}/health`)).status).toBe(200);
    expect(start.output().match(/pairing link written/g)).toHaveLength(1);
    const secondGrandchild = Number(readFileSync(grandchildFile, "utf8"));

    // SIGTERM: both stop cleanly, and nothing they started is left.
    const newServerPid = Number((await start.waitFor(/server started \(pid (\d+)\)/, mark2))[1]);
    start.child.kill("SIGTERM");
    expect(await start.exit).toEqual({ code: 0, signal: null });
    for (const pid of [newServerPid, newBridgePid, secondGrandchild]) expect(await goneWithin(pid)).toBe(true);
  });
});
