// scripts/start/supervised-child.ts with real child processes and injected timers (docs/security.md "npm start"):
// each exit is logged with its reason and the restart delay; the fifth exit within 60 s says the child keeps exiting
// and that it is retried every 30 s; an exit with code 2 (a refused config) is not retried but reported as fatal.
import { describe, expect, it } from "vitest";
import { SupervisedChild, type Timers } from "../../scripts/start/supervised-child.ts";

/** Time moves 100 ms per reading; a restart delay passes at once (the next turn of the event loop). */
function fakeTimers(): Timers {
  let now = 0;
  return {
    now: () => (now += 100),
    setTimeout: (run) => {
      const handle = setImmediate(run);
      return { cancel: () => clearImmediate(handle) };
    },
  };
}

function supervise(code: number, exits: number): Promise<{ lines: string[]; fatal: number | undefined }> {
  return new Promise((resolve) => {
    const lines: string[] = [];
    let fatal: number | undefined;
    const child = new SupervisedChild({
      name: "bridge",
      args: ["-e", `process.exit(${code})`],
      cwd: process.cwd(),
      env: process.env,
      timers: fakeTimers(),
      say: (line) => {
        lines.push(line);
        if (lines.filter((l) => l.includes("exit")).length >= exits)
          void child.stop("SIGTERM").then(() => resolve({ lines, fatal }));
      },
      onFatal: (c) => {
        fatal = c;
        resolve({ lines, fatal });
      },
    });
    child.start();
  });
}

describe("a supervised child that keeps exiting", { timeout: 60_000 }, () => {
  it("is restarted with backoff, each exit logged with its reason, and said to keep exiting on the fifth", async () => {
    const { lines } = await supervise(3, 5);
    const exits = lines.filter((line) => !line.includes("started"));
    expect(exits).toEqual([
      "bridge exited (exit code 3); restarting in 0.5 s",
      "bridge exited (exit code 3); restarting in 1 s",
      "bridge exited (exit code 3); restarting in 2 s",
      "bridge exited (exit code 3); restarting in 4 s",
      "bridge keeps exiting (last: exit code 3); retrying every 30 s",
    ]);
  });

  it("is not restarted after a config error (exit code 2)", async () => {
    const { lines, fatal } = await supervise(2, 1);
    expect(fatal).toBe(2);
    expect(lines.filter((line) => line.includes("started"))).toHaveLength(1);
    expect(lines.at(-1)).toBe("bridge exited (exit code 2): fix the config and start again");
  });
});
