// `npm start` with a stdio MCP server configured (docs/tools.md "Process groups and `npm start`"): the supervisor
// starts the server as the leader of its own process group, and the MCP children stay in that group; when the server
// is killed with SIGKILL (no shutdown of its own runs), the supervisor signals the group, so no MCP child is left,
// even one that does not exit when its input closes. The server comes back with a new MCP child; SIGTERM ends all.
import { retried } from "../support/holds.ts";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { descendantsOf } from "../../server/mcp/process-tree.ts";
import { FILESYSTEM_SERVER } from "../mcp/helpers.ts";
import { tempDir } from "../support/server.ts";
import { answers, freePort, goneWithin, isAlive, killAll, run, type Run } from "./support/processes.ts";

const dirs: string[] = [];
const runs: Run[] = [];
const leftovers: number[] = [];
afterEach(async () => {
  await killAll(runs);
  // Should the test fail, what it found running is not left behind.
  for (const pid of leftovers.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

// A launcher as `npx` is one: it runs the real MCP server (the official filesystem server) on its own stdio and stays
// up after its input closes, so only a signal ends it. It appends "<its pid> <the server's pid>" to argv[2].
const LAUNCHER = `
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
const [pidFile, serverJs, dir] = process.argv.slice(2);
const server = spawn(process.execPath, [serverJs, dir], { stdio: "inherit" });
appendFileSync(pidFile, process.pid + " " + server.pid + "\\n");
setInterval(() => {}, 1000);
`;

const ADMIN_TOKEN = "start-mcp-admin-token-0123456789";

/** Resolves once GET /mcp reports the `files` server ready. */
async function mcpReady(server: string): Promise<void> {
  await retried(
    async () => {
      const response = await fetch(`${server}/mcp`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = (await response.json()) as { servers?: Array<{ name: string; status: string }> };
      if (!body.servers?.some((s) => s.name === "files" && s.status === "ready")) throw new Error("files not ready");
    },
    60_000,
    100,
  );
}

/** The pids the launcher wrote for the `n`th start of the MCP server (1-based), once there. */
async function launcherPids(file: string, n: number): Promise<number[]> {
  return retried(
    async () => {
      const lines = readFileSync(file, "utf8").trim().split("\n").filter(Boolean);
      if (lines.length < n) throw new Error(`start ${n} not written yet`);
      return lines[n - 1]!.split(" ").map(Number);
    },
    60_000,
    50,
  );
}

describe("npm start with an MCP server", { timeout: 180_000 }, () => {
  it("leaves no MCP child after the server is SIGKILLed, starts a new one with it, and ends it on SIGTERM", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const [port, bridgePort] = [await freePort(), await freePort()];
    const pidFile = join(dir, "mcp.pids");
    writeFileSync(join(dir, "launcher.mjs"), LAUNCHER);
    const files = { command: process.execPath, args: [join(dir, "launcher.mjs"), pidFile, FILESYSTEM_SERVER, dir] };
    writeFileSync(join(dir, "config.json"), JSON.stringify({ mcp_servers: { files } }));
    const start = run(["scripts/start.ts"], {
      PORT: String(port),
      BRIDGE_PORT: String(bridgePort),
      DATA_DIR: join(dir, "data"),
      CONFIG: join(dir, "config.json"),
      ADMIN_TOKEN,
    });
    runs.push(start);
    const server = `http://127.0.0.1:${port}`;

    const serverPid = Number((await start.waitFor(/server started \(pid (\d+)\)/))[1]);
    await mcpReady(server);
    const [launcher, mcpServer] = await launcherPids(pidFile, 1);
    leftovers.push(launcher!, mcpServer!);
    // Both are the server's, in its process group (the group the supervisor made, led by the server).
    expect(descendantsOf(serverPid)).toEqual(expect.arrayContaining([launcher, mcpServer]));
    const group = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
    expect([group(serverPid), group(launcher!), group(mcpServer!)]).toEqual([serverPid, serverPid, serverPid]);

    const mark = start.output().length;
    process.kill(serverPid, "SIGKILL");
    await start.waitFor(/server exited \(signal SIGKILL\); restarting in 0\.5 s/, mark);
    expect(await goneWithin(launcher!)).toBe(true);
    expect(await goneWithin(mcpServer!)).toBe(true);

    // Back, with a new MCP child of its own.
    const newServerPid = Number((await start.waitFor(/server started \(pid (\d+)\)/, mark))[1]);
    await answers(`${server}/health`);
    await mcpReady(server);
    const [launcher2, mcpServer2] = await launcherPids(pidFile, 2);
    leftovers.push(launcher2!, mcpServer2!);
    expect(isAlive(launcher2!)).toBe(true);

    start.child.kill("SIGTERM");
    expect(await start.exit).toEqual({ code: 0, signal: null });
    for (const pid of [newServerPid, launcher2!, mcpServer2!]) expect(await goneWithin(pid)).toBe(true);
  });
});
