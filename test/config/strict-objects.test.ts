// Every object of the config schema is strict (docs/server.md "Config file" 1), found by walking the zod schema itself
// rather than a hand-written list of objects, so a new object (or an old one) that loses `.strict()` fails here.
// zod 4 keeps a schema's definition in `_zod.def`; `.strict()` sets an object's catchall to `never`.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ConfigError, parseConfig } from "../../server/config/load.ts";
import { configSchema } from "../../server/config/schema.ts";

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Schemas that hold no object inside them. */
const LEAVES = new Set([
  "string",
  "number",
  "boolean",
  "literal",
  "enum",
  "unknown",
  "any",
  "never",
  "null",
  "transform",
  "bigint",
  "date",
]);

interface FoundObject {
  /** The path a config key would have: record keys as `<id>`, array items as `0`. */
  path: string[];
  strict: boolean;
}

/** Every object inside `schema`, through wrappers, pipes, records, arrays and unions; an unknown kind is an error. */
function objectsIn(schema: unknown, path: string[] = []): FoundObject[] {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const own = { path, strict: def.catchall !== undefined && defOf(def.catchall).type === "never" };
      const shape = def.shape as Record<string, z.ZodType>;
      return [own, ...Object.entries(shape).flatMap(([key, value]) => objectsIn(value, [...path, key]))];
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return objectsIn(def.innerType, path);
    case "pipe":
      return [...objectsIn(def.in, path), ...objectsIn(def.out, path)];
    case "record":
      return objectsIn(def.valueType, [...path, "<id>"]);
    case "array":
      return objectsIn(def.element, [...path, "0"]);
    case "union":
      return (def.options as unknown[]).flatMap((option) => objectsIn(option, path));
    case "intersection":
      return [...objectsIn(def.left, path), ...objectsIn(def.right, path)];
    case "lazy":
      return objectsIn((def.getter as () => unknown)(), path);
    default:
      if (LEAVES.has(def.type)) return [];
      throw new Error(`the walk does not know zod's "${def.type}" at ${path.join(".") || "(root)"}: teach it`);
  }
}

describe("config schema objects", () => {
  const objects = objectsIn(configSchema);
  const paths = objects.map((object) => object.path.join(".") || "(root)");

  it("refuses an unknown key in every object of the schema (each one is .strict())", () => {
    expect(objects.filter((object) => !object.strict).map((object) => object.path.join(".") || "(root)")).toEqual([]);
  });

  it("walks the whole schema: every top-level object and the nested ones are found", () => {
    for (const path of [
      "(root)",
      "server",
      "providers.<id>",
      "providers.<id>.stream_recovery",
      "agents.<id>",
      "application",
      "application.notifications",
      "events",
      "runner",
      "assets",
      "bridge",
      "push",
      "titles",
    ]) {
      expect(paths).toContain(path);
    }
  });

  it("a strict object found by the walk refuses an unknown key when parsed (the catchall is what parsing uses)", () => {
    // `bridge` stands for them all: its unknown key is refused with its path.
    expect(() => parseConfig({ bridge: { extra: 1 } })).toThrow(ConfigError);
    expect(() => parseConfig({ bridge: { extra: 1 } })).toThrow("config error at bridge.extra: unknown key");
  });
});
