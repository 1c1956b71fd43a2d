// Counts the lines of every function in the production code (server/, bridge/, client/, app/src/) with the
// TypeScript compiler's own parser, so an arrow function in a JSX attribute counts the same as a declaration.
// A function's lines run from its first to its last line, inner functions included (as ESLint's
// max-lines-per-function counts them). `node --import tsx scripts/function-lengths.ts [min]` lists every function of
// at least `min` lines (default 51), longest first; test/architecture/function-length.test.ts holds the limit (README.md "Testing and benchmarks").
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const PRODUCTION_DIRS = ["server", "bridge", "client", "app/src"] as const;

export interface FunctionLength {
  /** `path:line` of the function's first line, from the repository root. */
  at: string;
  name: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The name a reader would search for: the declaration's, the variable's or property's it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isJsxExpression(parent) && ts.isJsxAttribute(parent.parent)) return `${parent.parent.name.getText()}=`;
  return "(anonymous)";
}

/** Every function of one file with its line count. */
export function functionLengths(file: string, text = readFileSync(file, "utf8")): FunctionLength[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({ at: `${relative(ROOT, file)}:${first + 1}`, name: nameOf(fn), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every production function, longest first. */
export function productionFunctionLengths(): FunctionLength[] {
  return PRODUCTION_DIRS.flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .flatMap((file) => functionLengths(file))
    .sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const min = Number(process.argv[2] ?? 51);
  const long = productionFunctionLengths().filter((fn) => fn.lines >= min);
  for (const fn of long) console.log(`${String(fn.lines).padStart(4)}  ${fn.name}  ${fn.at}`);
  console.log(`${long.length} functions of ${min} lines or more`);
}
