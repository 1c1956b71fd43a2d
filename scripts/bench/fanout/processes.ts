// The fan-out benchmarks' child processes: forked with tsx (and a CPU profile per child when BENCH_CPU_PROF=<dir>),
// and awaited one validated IPC message at a time.
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromBridgeChild, fromReceivers, type FromBridgeChild, type FromReceivers } from "./protocol.ts";

const here = fileURLToPath(new URL("./", import.meta.url));

/** Forks `scripts/bench/fanout/<file>`; `env` is added to the parent's environment. */
export function forkChild(file: string, env: Record<string, string> = {}): ChildProcess {
  const dir = process.env.BENCH_CPU_PROF;
  const prof = dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
  return fork(join(here, file), [], { execArgv: ["--import", "tsx", ...prof], env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/** The next message from `proc` that `accept` takes (parsed with `parse`; others are left to other listeners). */
export function nextMessage<T>(proc: ChildProcess, parse: (m: unknown) => T, accept: (m: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const listener = (message: unknown) => {
      const parsed = parse(message);
      if (!accept(parsed)) return;
      proc.off("message", listener);
      resolve(parsed);
    };
    proc.on("message", listener);
  });
}

export const parseReceiver = (m: unknown): FromReceivers => fromReceivers.parse(m);
export const parseBridge = (m: unknown): FromBridgeChild => fromBridgeChild.parse(m);

/** Asks the bridge child for its RSS. */
export async function bridgeRss(bridge: ChildProcess): Promise<number> {
  const reply = nextMessage(bridge, parseBridge, (m) => m.type === "rss");
  bridge.send({ type: "rss" });
  const message = await reply;
  return message.type === "rss" ? message.rss : 0;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
export const round2 = (n: number): number => Math.round(n * 100) / 100;
