// One child of `npm start` (the server or the bridge), kept running: started in its own process group with an IPC
// channel, restarted after an exit by RestartPolicy, stopped with its whole group so nothing it started outlives it.
import { spawn, type ChildProcess } from "node:child_process";
import { RESTART, RestartPolicy } from "./restart-policy.ts";

export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): { cancel(): void };
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

export interface ChildSpec {
  name: "server" | "bridge";
  /** Arguments after the node executable. */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A line for the person at the terminal (stderr). */
  say(line: string): void;
  /** Messages the child sends over IPC, with whether this is the child's first start. */
  onMessage?(message: unknown, firstStart: boolean): void;
  /** An exit that restarting cannot mend (a config error, exit code 2): the supervisor stops everything. */
  onFatal(code: number): void;
  timers?: Timers;
  /** How long a stopping child may take before its group is killed. */
  stopGraceMs?: number;
}

/** Exit code of a process that refused its config (server/main.ts, bridge/main.ts): restarting it cannot help. */
export const CONFIG_ERROR_EXIT = 2;

export class SupervisedChild {
  private child: ChildProcess | undefined;
  private startedAt = 0;
  private starts = 0;
  private restartTimer: { cancel(): void } | undefined;
  private stopping: Promise<void> | undefined;
  private readonly policy = new RestartPolicy();
  private readonly timers: Timers;

  constructor(private readonly spec: ChildSpec) {
    this.timers = spec.timers ?? realTimers;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    this.starts += 1;
    const firstStart = this.starts === 1;
    this.startedAt = this.timers.now();
    // detached: a process group of its own (its pid is the group id), so the whole group can be killed at once.
    const child = spawn(process.execPath, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env,
      detached: true,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    child.on("message", (message) => this.spec.onMessage?.(message, firstStart));
    child.on("error", (error) => this.spec.say(`${this.spec.name} could not start: ${error.message}`));
    child.on("exit", (code, signal) => this.onExit(child, code, signal));
    this.spec.say(`${this.spec.name} started (pid ${child.pid})`);
  }

  /** Stops the child (and stops restarting it): `signal` first, its group killed after the grace time. */
  stop(signal: NodeJS.Signals): Promise<void> {
    this.restartTimer?.cancel();
    this.restartTimer = undefined;
    const child = this.child;
    if (!child || !isRunning(child)) return (this.stopping ??= Promise.resolve());
    this.stopping ??= new Promise<void>((resolve) => {
      const grace = this.timers.setTimeout(() => killGroup(child, "SIGKILL"), this.spec.stopGraceMs ?? 10_000);
      child.once("exit", () => {
        grace.cancel();
        resolve();
      });
      child.kill(signal);
    });
    return this.stopping;
  }

  /** At once, the whole group (a second Ctrl-C). */
  kill(): void {
    if (this.child) killGroup(this.child, "SIGKILL");
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    // Whatever the child started and left behind (a tool's subprocess) goes with it.
    killGroup(child, "SIGKILL");
    if (this.stopping) return;
    const reason = signal ? `signal ${signal}` : `exit code ${code}`;
    if (code === CONFIG_ERROR_EXIT) {
      this.spec.say(`${this.spec.name} exited (${reason}): fix the config and start again`);
      this.spec.onFatal(code);
      return;
    }
    const { delayMs, keepsExiting } = this.policy.onExit(this.startedAt, this.timers.now());
    if (keepsExiting)
      this.spec.say(`${this.spec.name} keeps exiting (last: ${reason}); retrying every ${RESTART.maxDelayMs / 1000} s`);
    else this.spec.say(`${this.spec.name} exited (${reason}); restarting in ${delayMs / 1000} s`);
    this.restartTimer = this.timers.setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopping) this.start();
    }, delayMs);
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}
