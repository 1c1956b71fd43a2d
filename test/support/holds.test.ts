// The suite's own wait (test/support/holds.ts), which replaced vi.waitFor so that scripts can wait outside vitest: it
// must end as vi.waitFor did, with the first success or, at the limit, with the check's own last error.
import { expect, it } from "vitest";
import { holds, retried, waitFor } from "./holds.ts";

it("resolves with the first attempt that does not throw", async () => {
  let attempts = 0;
  const result = await waitFor(
    () => {
      attempts++;
      if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
      return `attempt ${attempts}`;
    },
    { timeout: 10_000, interval: 1 },
  );
  expect(result).toBe("attempt 3");
  expect(attempts).toBe(3);
});

it("rejects at the limit with the last error the attempt threw, so the failure says what was awaited", async () => {
  const thrown: Error[] = [];
  const waited = retried(
    async () => {
      thrown.push(new Error(`no answer yet (${thrown.length + 1})`));
      throw thrown.at(-1);
    },
    30,
    1,
  );
  await expect(waited).rejects.toThrow(/^no answer yet \(\d+\)$/);
  expect(await waited.catch((error: unknown) => error)).toBe(thrown.at(-1));
  await expect(holds(() => false, "timed out waiting for: the marker", 30)).rejects.toThrow(
    "timed out waiting for: the marker",
  );
});

it("starts no attempt while one is still running, and says it timed out when none ever failed", async () => {
  let attempts = 0;
  const never = () => {
    attempts++;
    return new Promise<never>(() => undefined);
  };
  await expect(waitFor(never, { timeout: 30, interval: 1 })).rejects.toThrow("Timed out in waitFor!");
  expect(attempts).toBe(1);
});
