// Helpers for tests that run the real entry points (`npm start`'s supervisor, server/main.ts) as child processes:
// free loopback ports, output to wait on, and checks that a process is gone. Every wait is for an event or an
// answer, never a fixed time.
import { holds, retried } from "../../support/holds.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export { freePort } from "../../support/ports.ts";

export interface Run {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output after `from` characters (default: anywhere). */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** server/main.ts's environment for a server of its own in `dir`: its data, its config.json, no bridge, no log. */
export function serverEnv(dir: string, port: number, adminToken: string): Record<string, string> {
  return {
    DATA_DIR: join(dir, "data"),
    CONFIG: join(dir, "config.json"),
    ADMIN_TOKEN: adminToken,
    PORT: String(port),
    BRIDGE_URL: "",
    LOG_LEVEL: "silent",
  };
}

/**
 * Stops every child of `runs` still running and empties the list: an afterEach's cleanup. SIGTERM first, so a
 * supervisor (`npm start`) takes its server and bridge with it rather than leaving them writing into a directory the
 * test is about to remove; SIGKILL for whatever has not exited within STOP_GRACE_MS.
 */
export async function killAll(runs: Run[]): Promise<void> {
  const running = runs.splice(0).filter((r) => r.child.exitCode === null && r.child.signalCode === null);
  await Promise.all(
    running.map(async (r) => {
      r.child.kill("SIGTERM");
      const grace = AbortSignal.timeout(STOP_GRACE_MS);
      const late = new Promise<"late">((resolve) => grace.addEventListener("abort", () => resolve("late")));
      if ((await Promise.race([r.exit, late])) === "late") {
        r.child.kill("SIGKILL");
        await r.exit;
      }
    }),
  );
}

const STOP_GRACE_MS = 5_000;

export function run(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exit,
    waitFor: (pattern, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.slice(from).match(pattern);
          if (match) {
            waiters.delete(check);
            return resolve(match);
          }
          if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            return reject(new Error(`exited before ${pattern}:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is gone within `ms` (a process that is not our child has no exit event here; a killed one takes a
 * moment to be reaped). A generous bound: it only has to tell "gone" from "left running".
 */
export async function goneWithin(pid: number, ms = 10_000): Promise<boolean> {
  return holds(() => !isAlive(pid), "gone", ms).then(
    () => true,
    () => false,
  );
}

/** Resolves with the first 200 answer of GET `url` (a restarting process refuses connections until it listens). */
export async function answers(url: string): Promise<Response> {
  // Refused connections and other answers are tried again until the suite's timeout ends the test.
  return retried(
    async () => {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
      return response;
    },
    60_000,
    50,
  );
}
