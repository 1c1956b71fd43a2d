// The bridge's shared state (docs/bridge.md "Shared state"): four capabilities the single node implements whole (no
// member of MemoryState is an empty body or a bare constant), cluster parts built from one options object, and a
// server's history place written in one place.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { code, findIn, ROOT, sourceFiles, withoutLine } from "./support/source-code.ts";

/** The members an interface declares (methods and properties), by name. */
function membersOf(text: string, name: string): string[] {
  const body = text.match(new RegExp(`export interface ${name}\\b[^{]*\\{([^]*?)\\n\\}`))?.[1] ?? "";
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[(:]/gm)].map((m) => m[1]!);
}

/** Methods of a class whose body does nothing or only answers a constant: a stub kept for an interface's sake. */
function stubsOf(text: string): string[] {
  const stub = /^ {2}(?:async )?(\w+)\([^)]*\)(?::[^{]+)? \{\s*(?:return (?:undefined|true|false|null|\{\})?;\s*)?\}/gm;
  return [...text.matchAll(stub)].map((m) => m[1]!).filter((name) => name !== "constructor");
}

it("splits the shared state into pairing, servers, replay and grants, which the single node implements whole", () => {
  const text = code(join(ROOT, "bridge/state/shared-state.ts"));
  const capabilities = ["PairingCapability", "ServersCapability", "ReplayCapability", "GrantsCapability"];
  const members = capabilities.flatMap((name) => membersOf(text, name));
  expect(capabilities.map((name) => membersOf(text, name).length).every((count) => count > 0)).toBe(true);
  // 19 with health and close (replay's forget of a deleted chat's events among them): down from 21 in one interface.
  expect(members.length + membersOf(text, "SharedState").length).toBeLessThanOrEqual(19);
  expect(stubsOf(code(join(ROOT, "bridge/state/memory-state.ts")))).toEqual([]);
  // The detector finds a stub when there is one.
  expect(stubsOf("  async refresh(): Promise<void> {}\n  keep(): undefined {\n    return undefined;\n  }\n")).toEqual([
    "refresh",
    "keep",
  ]);
});

it("builds every cluster part from one options object (at most 4 constructor parameters)", () => {
  const wide = sourceFiles(join(ROOT, "bridge/cluster")).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(/constructor\(([^)]*)\)/g)]
      .filter((m) => m[1]!.split(",").filter((part) => part.trim() !== "").length > 4)
      .map(() => withoutLine(file.slice(ROOT.length + 1)));
  });
  expect(wide).toEqual([]);
});

it("writes a server's history place (epoch, last id, buffer reset) in ServerState only", () => {
  const writes = findIn(["bridge"], /\.buffer\.reset\(|\b(?:historyEpoch|lastRelayed)\s*=[^=]/).map(withoutLine);
  expect([...new Set(writes)]).toEqual(["bridge/state/registry.ts"]);
});
