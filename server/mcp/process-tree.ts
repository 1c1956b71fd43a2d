// Ending a stdio server and whatever it started (`npx` runs the real server as its own child): the descendants are
// found before anything is signalled, since a killed parent's children are re-parented and lost from view. Input
// is closed first (a well-behaved server exits on EOF), then SIGTERM, then SIGKILL for what is still there.
import type { ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../clock.ts";

const GRACE_MS = 1000;

/** Linux: every descendant pid of `pid` (from /proc/<pid>/task/<tid>/children); elsewhere none. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children = "";
      try {
        children = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children.split(" ").filter(Boolean).map(Number)) {
        if (found.includes(child)) continue;
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once `child` has exited, or after `ms` on the clock. */
async function waitForExit(child: ChildProcess, ms: number, clock: Clock): Promise<void> {
  if (exited(child)) return;
  const stop = new AbortController();
  await Promise.race([
    new Promise((resolve) => child.once("exit", resolve)),
    clock.sleep(ms, stop.signal).catch(() => undefined),
  ]);
  stop.abort();
}

export async function endProcessTree(child: ChildProcess, clock: Clock): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const tree = [pid, ...descendantsOf(pid)];
  child.stdin?.end();
  await waitForExit(child, GRACE_MS, clock);
  signal(exited(child) ? tree.slice(1) : tree, "SIGTERM");
  await waitForExit(child, GRACE_MS, clock);
  // A pid that exited may be reused: signal only the child while it is ours (not yet reaped) and its descendants.
  signal(exited(child) ? tree.slice(1) : tree, "SIGKILL");
  await untilGone(child, tree.slice(1));
}

/**
 * After SIGKILL the kernel ends the processes soon, not at once: stop resolves when they are gone, so nothing of
 * the server outlives it. Real time here (the kernel's pace, not a delay we decide), bounded at two seconds.
 */
async function untilGone(child: ChildProcess, descendants: number[]): Promise<void> {
  const deadline = performance.now() + 2000;
  while (performance.now() < deadline && (!exited(child) || descendants.some(running))) await sleep(10);
}

/** Whether `pid` still runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
