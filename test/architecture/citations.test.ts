// The repository explains itself: no comment or doc cites a file outside it (the service's specification and design
// notes are not in the repository, so a reader could not follow the citation; the rule is stated in docs/ and that
// page is cited instead), every repository path a comment or doc names exists, and every `docs/<page>.md "Section"`
// citation names a heading (or a bold label) that page has. Read from the source, as server-layout.test.ts does.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const AREAS = ["server", "bridge", "client", "app", "scripts", "test", "docs", "README.md"];
const TEXT = /\.(ts|tsx|js|mjs|md|sh|html|css|json)$/;
/** Build output and installed packages: not written by us. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".vitest"]);
/** Folders made by a build, named by comments though absent from a fresh checkout. */
const GENERATED = ["app/dist"];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith("dist.")) return [];
    const child = `${path}/${entry.name}`;
    return entry.isDirectory() ? files(child) : TEXT.test(entry.name) ? [child] : [];
  });
}

const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url));
/** Every file checked; this one names the forbidden citations to find them, so it is not read. */
const SOURCES = AREAS.flatMap(files).filter((file) => file !== THIS_FILE);

interface Finding {
  at: string;
  text: string;
}

/** Every match of `pattern` in the sources, as `file:line` and the matched text. */
function findAll(pattern: RegExp, keep: (match: RegExpMatchArray, file: string) => boolean = () => true): Finding[] {
  return SOURCES.flatMap((file) =>
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .flatMap((line, index) =>
        [...line.matchAll(new RegExp(pattern.source, "g"))]
          .filter((match) => keep(match, file))
          .map((match) => ({ at: `${file}:${index + 1}`, text: match[0] })),
      ),
  );
}

/** The findings grouped by top-level area, so a failure says where the remaining work is. */
function byArea(findings: Finding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { at } of findings) {
    const area = at.split(/[/:]/)[0]!;
    counts[area] = (counts[area] ?? 0) + 1;
  }
  return counts;
}

// Spelled in pieces so this file does not cite what it forbids.
const OUTSIDE = new RegExp(
  [
    "\\b" + "SPEC" + "(?:\\.md)?\\b",
    "\\b" + "DESIGN" + "(?:\\.md)?\\b",
    "(?<![\\w/])" + "notes/",
    "\\.\\./" + "shared\\b",
  ].join("|"),
);

it("cites no file outside the repository (the specification, the design notes, the shared folder)", () => {
  const found = findAll(OUTSIDE);
  expect({ count: found.length, byArea: byArea(found), found }).toEqual({ count: 0, byArea: {}, found: [] });
});

/** A path from the repository's root, as comments and docs name files: `server/http/auth.ts`, `docs/events.md`. */
const ROOTED_PATH = /(?<![\w./-])(?:server|client|bridge|app|scripts|test|docs)\/[\w./-]*\w/;
/** A Markdown link target, relative to its page. */
const MARKDOWN_LINK = /\]\((?!https?:|mailto:|#)([^)#\s]+)/;

function resolves(path: string): boolean {
  if (/[*<]/.test(path)) return true; // a glob or a placeholder, not a path
  if (GENERATED.some((dir) => path === dir || path.startsWith(`${dir}/`))) return true;
  return existsSync(join(ROOT, path.replace(/\.$/, "")));
}

it("names only repository files that exist", () => {
  // In a page, `app/chats-phone.png` may also be relative to the page (docs/app/).
  const rooted = findAll(
    ROOTED_PATH,
    (match, file) => !resolves(match[0]) && !(file.endsWith(".md") && resolves(join(dirname(file), match[0]))),
  );
  const linked = findAll(
    MARKDOWN_LINK,
    (match, file) => file.endsWith(".md") && !resolves(normalize(join(dirname(file), match[1]!))),
  );
  const found = [...rooted, ...linked];
  expect({ count: found.length, byArea: byArea(found), found }).toEqual({ count: 0, byArea: {}, found: [] });
});

/** The headings and bold labels of each docs page: what a `docs/<page>.md "Section"` citation may name. */
function sectionsOf(page: string): string[] | undefined {
  const path = join(ROOT, page);
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  const headings = text
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map((line) => line.replace(/^#+\s*/, "").trim());
  const labels = [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!);
  return [...headings, ...labels].map((s) => s.toLowerCase());
}

const SECTION_CITATION = /(docs\/[\w/-]+\.md)\s+((?:"[^"\n]+"(?:,\s*)?)+)/;

it("cites only sections its docs pages have", () => {
  const found = findAll(SECTION_CITATION, (match) => {
    const sections = sectionsOf(match[1]!);
    if (!sections) return true;
    const cited = [...match[2]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.toLowerCase().replace(/\.$/, ""));
    return cited.some((section) => !sections.some((heading) => heading.startsWith(section)));
  });
  expect({ count: found.length, found }).toEqual({ count: 0, found: [] });
});

it("reads the sources it checks (a broken walk would make the checks above vacuous)", () => {
  expect(SOURCES.length).toBeGreaterThan(300);
  expect(SOURCES).toContain("docs/server.md");
  // The checks see a planted citation of each kind.
  expect(OUTSIDE.test("rule 4 (" + "SPEC" + ".md)")).toBe(true);
  expect(OUTSIDE.test("see " + "notes/" + "x.md")).toBe(true);
  expect(resolves("server/no-such-file.ts")).toBe(false);
});
