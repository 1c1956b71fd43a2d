// Values a start reads once from storage are checked with zod without its compiled fast path (docs/app.md
// "Start-up", SU15): an object schema's first parse otherwise compiles a parser with `new Function`, which a single
// parse does not repay; the day-month pattern is read in the chat list's first render, the credentials before it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { keptDayMonth, DAY_MONTH_KEY } from "../../app/src/state/day-month.ts";
import { loadCredentials } from "../../client/connection/credentials.ts";
import { memoryStorage } from "../../client/storage/storage.ts";
import { CREDENTIALS } from "../app-dom/support/fake-env.ts";
import { MemoryStorage } from "./support.ts";

afterEach(() => vi.unstubAllGlobals());

/** `read` run with the functions compiled meanwhile counted (zod compiles through the global `Function`). */
async function compiledWhile<T>(read: () => T | Promise<T>): Promise<{ value: T; compiled: number }> {
  let compiled = 0;
  const counting = new Proxy(Function, {
    construct(target, args) {
      compiled += 1;
      return Reflect.construct(target, args);
    },
  });
  vi.stubGlobal("Function", counting);
  try {
    return { value: await read(), compiled };
  } finally {
    vi.unstubAllGlobals();
  }
}

const PATTERN = {
  language: "en-GB",
  parts: [{ type: "day" }, { type: "literal", value: " " }, { type: "month" }],
  months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
};

describe("values read once at a start (SU15)", () => {
  it("counts what zod compiles: a fresh object schema's first parse compiles its parser", async () => {
    z.object({ warm: z.string() }).safeParse({ warm: "zod's probe of new Function, made once" });
    const read = await compiledWhile(() => z.object({ fresh: z.string() }).safeParse({ fresh: "x" }).success);
    expect(read).toEqual({ value: true, compiled: 1 });
  });

  it("reads the kept day-month pattern without compiling a parser", async () => {
    const storage = new MemoryStorage();
    storage.setItem(DAY_MONTH_KEY, JSON.stringify(PATTERN));
    const read = await compiledWhile(() => {
      vi.stubGlobal("localStorage", storage);
      return keptDayMonth("en-GB");
    });
    expect(read).toEqual({ value: PATTERN, compiled: 0 });
  });

  it("loads the stored credentials without compiling a parser", async () => {
    const storage = memoryStorage();
    // Stored as a pairing left them, not through saveCredentials, whose parse would compile the schema's parser first.
    await storage.setItem("credentials", JSON.stringify(CREDENTIALS));
    const read = await compiledWhile(() => loadCredentials(storage));
    expect(read).toEqual({ value: CREDENTIALS, compiled: 0 });
  });
});
