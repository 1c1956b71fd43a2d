// docs/errors.md is generated from the registry (scripts/gen-errors-doc.ts): the committed page must be the script's
// output, so a code added to the registry without regenerating the page, or an edit by hand, fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BRIDGE_REASONS } from "../../client/wire/bridge-errors.ts";
import { CLOSE_CODES } from "../../client/wire/close-codes.ts";
import { HTTP_ERRORS } from "../../client/wire/errors.ts";
import { LIBRARY_ERRORS } from "../../client/wire/library-errors.ts";
import { ERRORS_DOC_PATH, renderErrorsDoc } from "../../scripts/gen-errors-doc.ts";

describe("docs/errors.md", () => {
  it("is the generator's output from the current registry (run scripts/gen-errors-doc.ts)", () => {
    expect(readFileSync(ERRORS_DOC_PATH, "utf8")).toBe(renderErrorsDoc());
  });

  it("documents every registered code", () => {
    const page = readFileSync(ERRORS_DOC_PATH, "utf8");
    const codes = [...Object.keys(HTTP_ERRORS), ...Object.keys(BRIDGE_REASONS), ...Object.keys(LIBRARY_ERRORS)];
    expect(codes.filter((code) => !page.includes(`| \`${code}\` |`))).toEqual([]);
    expect(Object.values(CLOSE_CODES).filter((rule) => !page.includes(`| ${rule.code} |`))).toEqual([]);
  });
});
