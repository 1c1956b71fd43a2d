// Small typed values in localStorage (admin token, cached sessions for the offline view, drafts). Every read is
// checked with zod, so a value from an older build or a hand edit reads as absent instead of breaking the app.
import type { z } from "zod";

export function readStored<S extends z.ZodType>(key: string, schema: S): z.infer<S> | undefined {
  try {
    const text = localStorage.getItem(key);
    if (text === null) return undefined;
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function writeStored(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Full or disabled storage: the cache is a convenience; the app works without it.
  }
}

export function removeStored(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // As above.
  }
}
