// Small typed values in localStorage (admin token, preferences). Every read is checked with zod, so a value from an
// older build or a hand edit reads as absent instead of breaking the app. Full or disabled storage is reported, not
// thrown: these values are conveniences the app works without.
import type { z } from "zod";
import type { AppEnv } from "./env.ts";

type StoreEnv = Pick<AppEnv, "storage" | "report">;

export function readStored<S extends z.ZodType>(env: StoreEnv, key: string, schema: S): z.infer<S> | undefined {
  try {
    const text = env.storage.getItem(key);
    if (text === null) return undefined;
    // Without zod's compiled fast path: a value read once does not repay compiling it (an object's first parse
    // compiles one with new Function, which for the day-month pattern read in the list's first render cost more than
    // the check itself: docs/app.md "Start-up", SU15).
    const parsed = schema.safeParse(JSON.parse(text), { jitless: true });
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    env.report(`reading ${key} failed`, error);
    return undefined;
  }
}

export function writeStored(env: StoreEnv, key: string, value: unknown): void {
  try {
    env.storage.setItem(key, JSON.stringify(value));
  } catch (error) {
    env.report(`saving ${key} failed`, error);
  }
}

export function removeStored(env: StoreEnv, key: string): void {
  try {
    env.storage.removeItem(key);
  } catch (error) {
    env.report(`removing ${key} failed`, error);
  }
}

/**
 * The page's localStorage for a value that is only a convenience (a learnt pattern or size): outside a page there is
 * none, and a storage that fails is passed over without a report.
 */
export function pageStorage(): StoreEnv | undefined {
  const storage = (globalThis as { localStorage?: Storage }).localStorage;
  return storage && { storage, report: () => undefined };
}
