// Benchmark children (scripts/bench/fanout.ts and fanout/*, relay.ts, fanout-10k.ts): each part under test in its own process, as deployed, so
// each gets its own core; the parent talks to them over IPC with messages validated by zod.
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";

// BENCH_CPU_PROF=<dir>: every child writes a V8 CPU profile there (open in Chrome DevTools).
const PROFILE_DIR = process.env.BENCH_CPU_PROF;

/** Forks `file` (in `dir`) under tsx, sharing stdout/stderr, with an IPC channel; `env` is added to this process's. */
export function forkChild(
  dir: string,
  file: string,
  options: { args?: string[]; env?: Record<string, string> } = {},
): ChildProcess {
  const prof = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const env = options.env ? { ...process.env, ...options.env } : undefined;
  return fork(join(dir, file), options.args ?? [], {
    execArgv: ["--import", "tsx", ...prof],
    ...(env ? { env } : {}),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** The child's next message that `accept` takes, parsed by `parse` (messages it does not take are skipped). */
export function nextMessage<T>(proc: ChildProcess, parse: (m: unknown) => T, accept: (m: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`benchmark child exited (${code}) before answering`));
    const listener = (message: unknown) => {
      const parsed = parse(message);
      if (!accept(parsed)) return;
      proc.off("message", listener);
      proc.off("exit", onExit);
      resolve(parsed);
    };
    proc.on("message", listener);
    proc.once("exit", onExit);
  });
}
