// Slow-connection flood (issue 11 item 12). Prints one JSON line. For two servers in the same run, each in its own
// child process: Fastify's default HTTP server (the baseline, what the project ran before) and the bounded one
// (server/http/server-options.ts defaults). Against each, N connections send a partial request line and headers
// and never finish them; after S seconds we count how many the server still holds open and read its RSS
// (before the flood and after), from /proc.
// Usage: node --import tsx scripts/bench/slow-connections.ts [--connections 300] [--seconds 15]
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "300" },
    seconds: { type: "string", default: "15" },
    child: { type: "string" },
  },
});

async function child(mode: string): Promise<void> {
  const [{ parseConfig }, { createRuntime }, { buildApp }, { tempDir }] = await Promise.all([
    import("../../server/config/load.ts"),
    import("../../server/runtime.ts"),
    import("../../server/app.ts"),
    import("../../test/support/server.ts"),
  ]);
  const dir = tempDir("bench-slow-");
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: "bench" });
  // The baseline swaps in Fastify's own server (no serverFactory: its defaults, as before the limits).
  const app = mode === "baseline" ? buildApp(runtime.ctx, { serverFactory: undefined }) : runtime.app;
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  process.send!({ port: Number(new URL(address).port) });
  process.on("disconnect", () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function flood(mode: string, count: number, seconds: number) {
  const server: ChildProcess = fork(new URL(import.meta.url).pathname, ["--child", mode], {
    execArgv: ["--import", "tsx"],
  });
  const port = await new Promise<number>((resolve) =>
    server.once("message", (m) => resolve((m as { port: number }).port)),
  );
  await sleep(1000);
  const rssBefore = rssMiB(server.pid!);
  let open = 0;
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      open++;
      socket.write(`GET /events?since_id=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-${i}: ${"x".repeat(2000)}`);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => open--);
    socket.resume(); // read, so the server's close (after its 408) is seen
    sockets.push(socket);
  }
  await sleep(seconds * 1000);
  const rssAfter = rssMiB(server.pid!);
  const held = open;
  for (const socket of sockets) socket.destroy();
  server.disconnect();
  await new Promise((r) => server.once("exit", r));
  const round = (n: number) => Math.round(n * 10) / 10;
  return { held_after_s: held, rss_before_mib: round(rssBefore), rss_after_mib: round(rssAfter) };
}

if (values.child) {
  await child(values.child);
} else {
  const count = Number(values.connections);
  const seconds = Number(values.seconds);
  const baseline = await flood("baseline", count, seconds);
  const bounded = await flood("bounded", count, seconds);
  process.stdout.write(
    JSON.stringify({ bench: "slow-connections", connections: count, seconds, baseline, bounded }) + "\n",
  );
}
