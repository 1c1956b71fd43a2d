// Rules of the bridge's code, read from its sources (each offending line is named). Time is the clock module's
// (docs/bridge.md "Time", B178): no file of bridge/ but clock.ts calls setTimeout, setInterval or Date.now, so every
// delay, window and deadline runs on the clock a test injects (or on systemClock, named, where wall time is the
// point). The channels and the relay ask the shared state and never the cluster (docs/bridge.md "Shared state", B179).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const RAW_TIME = /\b(setTimeout|setInterval|Date\.now)\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the bridge's time", () => {
  it("B178: no raw setTimeout, setInterval or Date.now outside bridge/clock.ts", () => {
    const offending = sources(join(ROOT, "bridge"))
      .filter((path) => relative(ROOT, path) !== join("bridge", "clock.ts"))
      .flatMap((path) =>
        readFileSync(path, "utf8")
          .split("\n")
          .flatMap((line, i) =>
            RAW_TIME.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${relative(ROOT, path)}:${i + 1}`] : [],
          ),
      );
    expect(offending).toEqual([]);
  });

  it("B179: the channels and the relay never reach the cluster: they ask the shared state only", () => {
    const offending = [...sources(join(ROOT, "bridge/channels")), ...sources(join(ROOT, "bridge/relay"))].flatMap(
      (path) =>
        readFileSync(path, "utf8")
          .split("\n")
          .flatMap((line, i) =>
            /cluster/i.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${relative(ROOT, path)}:${i + 1}`] : [],
          ),
    );
    expect(offending).toEqual([]);
  });
});
