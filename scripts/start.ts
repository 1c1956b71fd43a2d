// `npm start`: the server and the bridge, two processes, one command (DESIGN.md "Start"). Each child gets the
// same environment; a signal reaches both; when one exits the other is stopped, and the exit code is the first
// non-zero one.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureAppBuilt } from "./build-app.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const entries = { server: "server/main.ts", bridge: "bridge/main.ts" } as const;

// The companion app is served at the server's /: build it first when app/dist is missing or older than app/.
if (await ensureAppBuilt()) process.stdout.write("companion app built (app/dist)\n");

const children = Object.entries(entries).map(([name, entry]) => {
  const child = spawn(process.execPath, ["--import", "tsx", entry], { cwd: root, env: process.env, stdio: "inherit" });
  return { name, child };
});

let exitCode = 0;
let stopping = false;

function stopAll(signal: NodeJS.Signals): void {
  stopping = true;
  for (const { child } of children) if (isRunning(child)) child.kill(signal);
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

for (const { name, child } of children) {
  child.on("exit", (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping the others\n`);
      stopAll("SIGTERM");
    }
    if (code && !exitCode) exitCode = code;
    if (children.every(({ child: c }) => !isRunning(c))) process.exit(exitCode);
  });
}

process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));
