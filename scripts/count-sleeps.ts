// Counts the real-time sleeps in test/ (docs/testing.md "Waiting"): a call of a bare `setTimeout(`, `sleep(`,
// `waitForTimeout(` or of node:timers/promises' setTimeout under any name, in code (comments and strings left out).
// A member call on an injected clock (`clock.sleep(`, `timers.timer(`) is not one, unless the clock is the real one
// (`systemClock.sleep(`); neither is a method that defines `sleep(` (a fake clock's own). Usage: node --import tsx scripts/count-sleeps.ts [--list]
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The text with comments, strings and regular expressions blanked (line breaks kept); a template's `${}` code stays. */
export function codeOnly(text: string): string {
  const out = [...text];
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " ";
  };
  /** Where each open template's `${` was opened: the brace depth to return to it at. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const skipQuoted = (quote: string) => {
    const start = i++;
    while (i < text.length && text[i] !== quote && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
    blank(start + 1, i);
    i++;
  };
  /** A template's text from i (after its backtick or a `}`) to its end or its next `${`. */
  const skipTemplateText = () => {
    const start = i;
    while (i < text.length && text[i] !== "`" && !(text[i] === "$" && text[i + 1] === "{"))
      i += text[i] === "\\" ? 2 : 1;
    blank(start, i);
    if (text[i] === "`") i++;
    else {
      templates.push(depth);
      i += 2;
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      blank(i, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      blank(i, end < 0 ? text.length : end + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '"' || c === "'") skipQuoted(c);
    else if (c === "/" && /[(,=:[!&|?{};+\-*%<>~^]\s*$|^\s*$|\breturn\s*$/.test(text.slice(Math.max(0, i - 12), i)))
      skipQuoted("/");
    else if (c === "`") {
      i++;
      skipTemplateText();
    } else if (c === "{") {
      depth++;
      i++;
    } else if (c === "}") {
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i++;
        skipTemplateText();
      } else {
        depth--;
        i++;
      }
    } else i++;
  }
  return out.join("");
}

/** The names node:timers/promises' setTimeout is imported under in this file. */
function promiseTimerNames(text: string): string[] {
  return [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']node:timers\/promises["']/g)].flatMap((m) =>
    [...m[1]!.matchAll(/\bsetTimeout(?:\s+as\s+(\w+))?/g)].map((named) => named[1] ?? "setTimeout"),
  );
}

/** `line: code` of each real-time sleep in one file's text. */
export function sleepsIn(text: string): Array<{ line: number; code: string }> {
  const code = codeOnly(text);
  const names = ["setTimeout", "sleep", "waitForTimeout", ...promiseTimerNames(text)];
  const call = new RegExp(
    `(?<![.\\w])(?:${[...new Set(names)].join("|")})\\(|\\.waitForTimeout\\(|\\bsystem(?:Clock|Timers)\\.(?:sleep|timer)\\(`,
    "g",
  );
  const lines = code.split("\n");
  return [...code.matchAll(call)]
    .map((match) => {
      const line = code.slice(0, match.index).split("\n").length;
      return { line, code: lines[line - 1]!.trim() };
    })
    .filter(({ code: source }) => !/^(?:async\s+)?sleep\([^)]*\)\s*(?::[^{]*)?\{/.test(source))
    .filter(({ code: source }) => !/^import\b/.test(source));
}

/** Every real-time sleep under test/, as `file:line: code`. */
export function realTimeSleeps(root = ROOT): string[] {
  return testFiles(join(root, "test")).flatMap((file) =>
    sleepsIn(readFileSync(file, "utf8")).map(({ line, code }) => `${relative(root, file)}:${line}: ${code}`),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const found = realTimeSleeps();
  if (process.argv.includes("--list")) for (const at of found) console.log(at);
  console.log(JSON.stringify({ real_time_sleeps: found.length }));
}
