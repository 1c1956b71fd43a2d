// Duplicated blocks (docs/testing.md "Duplicates"): scripts/count-duplicates.ts counts the pairs of places sharing six
// or more lines, import lists aside, with the `duplicates` command, and `npm run check:duplicates` holds them under a
// ceiling that only comes down. That command is a tool of the development machine, not a package: this test checks
// the counting rule itself, on a fixed output.
import { expect, it } from "vitest";
import { countPairs, withoutImports } from "../../scripts/count-duplicates.ts";

it("sets aside a pair that is only an import list, and counts one with code in it or with more runs", () => {
  const files: Record<string, string> = {
    "a.ts": ["import {", "  one,", "  two,", "  three,", "  four,", "  five,", "  six,", '} from "./x.ts";'].join("\n"),
    "b.ts": ["import {", "  one,", "  two,", "  three,", "  four,", "  five,", "  six,", '} from "./x.ts";'].join("\n"),
    "c.ts": Array.from({ length: 8 }, (_, i) => `const v${i} = ${i};`).join("\n"),
  };
  const output = [
    "3 pairs of places (3 files read), each sharing runs of 6 or more identical or same-shape lines",
    "D1 a.ts:1-8 ~ b.ts:1-8",
    "D2 a.ts:1-8 ~ b.ts:1-8 (+1 more run)",
    "D3 c.ts:1-8 ~ c.ts:1-8 shape",
  ].join("\n");
  const count = countPairs(output, (file) => files[file]!);
  expect(count.importLists.map((pair) => pair.row)).toEqual(["D1 a.ts:1-8 ~ b.ts:1-8"]);
  expect(count.counted).toBe(2);
});

it("sets aside an import list with more runs when the files share nothing once their imports are blanked", () => {
  const list = ["import {", "  one,", "  two,", "  three,", "  four,", "  five,", "  six,", '} from "./x.ts";'];
  const files: Record<string, string> = { "a.ts": list.join("\n"), "b.ts": list.join("\n"), "c.ts": list.join("\n") };
  const output = [
    "2 pairs of places (3 files read), each sharing runs of 6 or more identical or same-shape lines",
    "D1 a.ts:1-8 ~ b.ts:1-8 (+1 more run)",
    "D2 a.ts:1-8 ~ c.ts:1-8 (+1 more run)",
  ].join("\n");
  const count = countPairs(
    output,
    (file) => files[file]!,
    (pair) => pair.places[1].file === "c.ts",
  );
  expect(count.importLists.map((pair) => pair.row)).toEqual(["D1 a.ts:1-8 ~ b.ts:1-8 (+1 more run)"]);
  expect(count.counted).toBe(1);
});

it("blanks import declarations and keeps every other line where it stands", () => {
  const text = ["import {", "  one,", '} from "./x.ts";', "const a = one;", 'import b from "./b.ts";', "a;"].join("\n");
  expect(withoutImports("a.ts", text).split("\n")).toEqual(["", "", "", "const a = one;", "", "a;"]);
});
