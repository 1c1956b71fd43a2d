// Waiting for a condition, never for an amount of time (docs/testing.md "Waiting"): vitest's waitFor checks it
// again every few milliseconds and ends as soon as it holds, or fails with `failure` once `limitMs` has passed.
import { vi } from "vitest";

/** Resolves once `check` holds (or resolves true); rejects with `failure` when it has not within `limitMs`. */
export async function holds(check: () => boolean | Promise<boolean>, failure: string, limitMs: number): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(failure);
    },
    { timeout: limitMs, interval: 5 },
  );
}

/** Resolves with the first result of `attempt` that does not throw; rethrows its last error after `limitMs`. */
export function retried<T>(attempt: () => Promise<T>, limitMs: number, interval = 20): Promise<T> {
  return vi.waitFor(attempt, { timeout: limitMs, interval });
}
