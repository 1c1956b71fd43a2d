// The wire's schemas are built on first use (client/wire/built-on-first-use.ts; docs/app.md "Start-up", SU12):
// loading the client library makes few zod schemas, the first parse through a schema builds it, and a schema built
// later parses, fails and composes exactly as the one it stands for. The count is taken in a fresh node process
// (test/client/support/count-schemas.ts): this worker's modules may have been loaded by another file already.
// Spawning node with tsx is slow on a loaded machine: the test gets a generous timeout (nothing here is timed).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { lazySchema, onFirstUse } from "../../client/wire/built-on-first-use.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Most zod schemas loading the library may make: 316 now (161 of them the wire's stand-ins); 1,605 made at load. */
const SCHEMAS_AT_LOAD = 500;

describe("loading the client library", () => {
  it("makes few zod schemas; the first parse through one builds it", { timeout: 120_000 }, async () => {
    const run = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "test/client/support/count-schemas.ts"],
      {
        cwd: root,
      },
    );
    const counted = JSON.parse(run.stdout) as {
      atLoad: number;
      byFirstParse: number;
      byFirstNarrow: number;
      byEveryType: number;
      loaded: boolean;
    };
    expect(counted.loaded).toBe(true);
    expect(counted.atLoad).toBeGreaterThan(0);
    expect(counted.atLoad).toBeLessThanOrEqual(SCHEMAS_AT_LOAD);
    // The stored event's schema (its common fields and the type) is made by its first parse, not before.
    expect(counted.byFirstParse).toBeGreaterThan(0);
    // Narrowing an event to its type builds that type's schema, not the other 27 types' (client/events/narrow.ts).
    expect(counted.byFirstNarrow).toBeGreaterThan(0);
    expect(counted.byEveryType).toBeGreaterThan(10 * counted.byFirstNarrow);
  });
});

describe("loading the export's module (server/export/format.ts)", () => {
  it(
    "builds none of the wire's schemas it derives from: the session's is built on first use",
    { timeout: 120_000 },
    async () => {
      const run = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "test/client/support/count-export-schemas.ts"],
        { cwd: root },
      );
      const counted = JSON.parse(run.stdout) as { bySessionLook: number; parsed: boolean; kept?: string };
      // Built at the module's load (its chat record read into the session's schema there), the first look makes none.
      expect(counted.bySessionLook).toBeGreaterThan(0);
      // The chat record parses as before: a message keeps the fields the wire's schema does not name.
      expect(counted.parsed).toBe(true);
      expect(counted.kept).toBe("as it is");
    },
  );
});

function counted<T>(build: () => T): { build: () => T; builds: () => number } {
  let builds = 0;
  return { build: () => ((builds += 1), build()), builds: () => builds };
}

describe("a schema built on first use", () => {
  it("builds nothing until its first parse, then builds once", () => {
    const { build, builds } = counted(() => z.object({ id: z.string() }));
    const schema = lazySchema(build);
    const holder = z.object({ item: schema.optional(), items: z.array(schema) });
    expect(builds()).toBe(0);
    expect(holder.parse({ item: { id: "a" }, items: [{ id: "b" }] })).toEqual({
      item: { id: "a" },
      items: [{ id: "b" }],
    });
    expect(schema.parse({ id: "c" })).toEqual({ id: "c" });
    expect(builds()).toBe(1);
    expect(schema.unwrap()).toBe(schema.unwrap());
    expect(builds()).toBe(1);
  });

  it("parses and fails as the schema it stands for: the same value, the same issues", () => {
    const eager = z.looseObject({ id: z.string(), count: z.number().int().nonnegative().optional() }).strict();
    const lazy = lazySchema(() => eager);
    for (const input of [{ id: "a", count: 2 }, { id: "a", extra: true }, { id: 1, count: -1 }, null, "x"])
      expect(lazy.safeParse(input)).toEqual(eager.safeParse(input));
  });

  it("is an option of a discriminated union and extends as its inner schema", () => {
    const started = lazySchema(() => z.object({ type: z.literal("started"), at: z.string() }));
    const ended = lazySchema(() => z.object({ type: z.literal("ended") }));
    const event = z.discriminatedUnion("type", [started, ended]);
    expect(event.parse({ type: "ended" })).toEqual({ type: "ended" });
    expect(event.safeParse({ type: "started" }).error?.issues[0]?.path).toEqual(["at"]);
    expect(event.safeParse({ type: "other" }).success).toBe(false);
    const stamped = started.unwrap().extend({ id: z.string() });
    expect(stamped.parse({ type: "started", at: "now", id: "1" })).toEqual({ type: "started", at: "now", id: "1" });
  });

  it("onFirstUse makes its value once, on the first call", () => {
    const { build, builds } = counted(() => ({ made: true }));
    const value = onFirstUse(build);
    expect(builds()).toBe(0);
    expect(value()).toBe(value());
    expect(builds()).toBe(1);
  });
});
