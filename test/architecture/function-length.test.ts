// Short functions (README.md "Testing and benchmarks"): no production function in server/, bridge/, client/ or
// app/src/ runs over 80 lines, counted by the TypeScript parser (scripts/function-lengths.ts), inner functions
// included. The few still over it are named below with their length: none may grow, a new one fails, and an entry
// that no longer needs its place is taken off the list.
import { describe, expect, it } from "vitest";
import { functionLengths, productionFunctionLengths } from "../../scripts/function-lengths.ts";

const LIMIT = 80;

/** `path name` → its length today; each one is to be split, never to grow. */
const STILL_LONG: Record<string, number> = {
  // Wires every part of the server; issue 29's event-log and settings work rewrites it: split it there.
  "server/runtime.ts createRuntime": 182,
};

const keyOf = (fn: { at: string; name: string }) => `${fn.at.replace(/:\d+$/, "")} ${fn.name}`;

describe("function length", () => {
  const long = productionFunctionLengths().filter((fn) => fn.lines > LIMIT);

  it(`keeps every production function at ${LIMIT} lines or fewer`, () => {
    const over = long
      .filter((fn) => !(keyOf(fn) in STILL_LONG) || fn.lines > STILL_LONG[keyOf(fn)]!)
      .map((fn) => `${fn.at} ${fn.name}: ${fn.lines} lines`);
    expect(over).toEqual([]);
  });

  it("lists only functions that are still over the limit", () => {
    const stale = Object.keys(STILL_LONG).filter((key) => !long.some((fn) => keyOf(fn) === key));
    expect(stale).toEqual([]);
  });

  it("counts an arrow function in a JSX attribute, a method and a declaration alike, inner lines included", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = [
      `export function outer() {`,
      `  const inner = () => {`,
      body(3),
      `  };`,
      `}`,
      `class A {`,
      `  method() {`,
      body(2),
      `  }`,
      `}`,
      `const view = () => <button onClick={() => {`,
      body(1),
      `}} />;`,
    ].join("\n");
    const found = functionLengths("/virtual/example.tsx", text).map((fn) => `${fn.name}:${fn.lines}`);
    expect(found).toEqual(["outer:7", "inner:5", "method:4", "view:3", "onClick=:3"]);
  });
});
