// ServerApi is the sum of its route groups (client/api/calls/, one per route module): every method of every group
// file is ServerApi's, the very function, and mixIn refuses a method two groups define.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mixIn } from "../../client/api/mix-in.ts";
import { ServerApi } from "../../client/api/server-api.ts";

const CALLS = new URL("../../client/api/calls/", import.meta.url);

describe("ServerApi's route groups", () => {
  it("has every method of every group in client/api/calls/", async () => {
    const files = readdirSync(CALLS).filter((file) => file.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const groups = Object.values(await import(new URL(file, CALLS).href)).filter(
        (value): value is abstract new () => object => typeof value === "function" && value.name.endsWith("Calls"),
      );
      expect(groups, file).toHaveLength(1);
      const prototype = groups[0]!.prototype as Record<string, unknown>;
      const methods = Object.getOwnPropertyNames(prototype).filter((name) => name !== "constructor");
      expect(methods.length, file).toBeGreaterThan(0);
      const mixed: object = ServerApi.prototype;
      for (const name of methods) expect(Reflect.get(mixed, name), name).toBe(prototype[name]);
    }
  });

  it("refuses a method that two groups define", () => {
    abstract class Target {}
    class One {
      list() {}
    }
    class Other {
      list() {}
    }
    expect(() => mixIn(Target, [One, Other])).toThrow("Target: list is defined twice");
  });
});
