// Waiting for a condition, never for an amount of time (docs/testing.md "Waiting"): the check runs again every few
// milliseconds and the wait ends as soon as it holds, or fails with the check's last error once the limit has passed.
// It imports nothing from vitest, so scripts outside vitest (scripts/screenshots.ts) wait through it too.

/**
 * The real timers, taken when this module loads: a test that fakes the clock (vi.useFakeTimers) must not stop its own
 * waits, as vi.waitFor's real timers do not stop either.
 */
const { setInterval, clearInterval } = globalThis;

/**
 * Resolves with the first result of `attempt` that does not throw (or reject); rejects with its last error once
 * `timeout` ms have passed (or "Timed out in waitFor!" if it never failed). An attempt still running is not started
 * again. vitest's `vi.waitFor`, without vitest: an interval for the checks and an AbortSignal for the limit.
 */
export function waitFor<T>(
  attempt: () => T | Promise<T>,
  { timeout, interval }: { timeout: number; interval: number },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const limit = AbortSignal.timeout(timeout);
    let lastError: unknown = new Error("Timed out in waitFor!");
    let running = false;
    const stop = () => {
      clearInterval(checks);
      limit.removeEventListener("abort", giveUp);
    };
    const giveUp = () => {
      stop();
      reject(lastError);
    };
    const check = () => {
      if (running) return;
      running = true;
      Promise.resolve()
        .then(attempt)
        .then(
          (result) => {
            stop();
            resolve(result);
          },
          (error: unknown) => {
            running = false;
            lastError = error;
          },
        );
    };
    const checks = setInterval(check, interval);
    limit.addEventListener("abort", giveUp);
    check();
  });
}

/** Resolves once `check` holds (or resolves true); rejects with `failure` when it has not within `limitMs`. */
export async function holds(check: () => boolean | Promise<boolean>, failure: string, limitMs: number): Promise<void> {
  await waitFor(
    async () => {
      if (!(await check())) throw new Error(failure);
    },
    { timeout: limitMs, interval: 5 },
  );
}

/** Resolves with the first result of `attempt` that does not throw; rethrows its last error after `limitMs`. */
export function retried<T>(attempt: () => Promise<T>, limitMs: number, interval = 20): Promise<T> {
  return waitFor(attempt, { timeout: limitMs, interval });
}
