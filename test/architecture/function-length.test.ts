// Short functions (README.md "Testing and benchmarks"): no production function in server/, bridge/, client/ or
// app/src/ runs over 80 lines, counted by the TypeScript parser (scripts/function-lengths.ts), inner functions
// included. There is no allow-list: a function that grows past the limit is split into named steps.
import { describe, expect, it } from "vitest";
import { functionLengths, productionFunctionLengths } from "../../scripts/function-lengths.ts";

const LIMIT = 80;

describe("function length", () => {
  it(`keeps every production function at ${LIMIT} lines or fewer`, () => {
    const over = productionFunctionLengths()
      .filter((fn) => fn.lines > LIMIT)
      .map((fn) => `${fn.at} ${fn.name}: ${fn.lines} lines`);
    expect(over).toEqual([]);
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
