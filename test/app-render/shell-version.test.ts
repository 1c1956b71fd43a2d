// The offline shell's version (docs/app.md "Offline", OF17): a digest of its files' paths and bytes, whatever order the
// build lists them in.
import { describe, expect, it } from "vitest";
import { shellVersion } from "../../app/src/sw/shell-version.ts";

const SHELL = [
  { path: "index.html", bytes: "<!doctype html>" },
  { path: "assets/index-abc.js", bytes: "//# allFunctionsCalledOnLoad\nconst a=1;" },
  { path: "icons/icon.svg", bytes: new Uint8Array([60, 115, 118, 103, 62]) },
];

describe("the offline shell's version", () => {
  it("is the same for the same files in any order", () => {
    expect(shellVersion(SHELL)).toMatch(/^[0-9a-f]{16}$/);
    expect(shellVersion([...SHELL].reverse())).toBe(shellVersion(SHELL));
  });

  it("changes when a file's bytes change under the same name, and when a name changes", () => {
    const hintless = SHELL.map((file) => (file.path.endsWith(".js") ? { ...file, bytes: "const a=1;" } : file));
    expect(shellVersion(hintless)).not.toBe(shellVersion(SHELL));
    const renamed = SHELL.map((file) => (file.path === "index.html" ? { ...file, path: "index.htm" } : file));
    expect(shellVersion(renamed)).not.toBe(shellVersion(SHELL));
  });

  it("does not read a path's end as its bytes' start", () => {
    expect(shellVersion([{ path: "ab", bytes: "" }])).not.toBe(shellVersion([{ path: "a", bytes: "b" }]));
  });
});
