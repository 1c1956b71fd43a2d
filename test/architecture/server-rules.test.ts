// The server's house rules, read from the source (docs/server.md): one clock module, pino's one call shape, one error
// family. Like server-layout.test.ts, these fail on the line that breaks a rule, whoever writes it next.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SERVER = join(ROOT, "server");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** A file's text with comments blanked (line numbers kept), so a comment may name what the code may not do. */
function code(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[^]*?\*\/|\/\/[^\n]*/g, (comment) => comment.replace(/[^\n]/g, " "));
}

/** `file:line` of every match of `pattern` in the server's code (comments left out). */
function findInServer(pattern: RegExp): string[] {
  return sourceFiles(SERVER).flatMap((file) => {
    const text = code(file);
    return [...text.matchAll(new RegExp(pattern.source, "g"))].map(
      (match) => `${relative(ROOT, file)}:${text.slice(0, match.index).split("\n").length}`,
    );
  });
}

const withoutLine = (at: string) => at.replace(/:\d+$/, "");

// --- time ---------------------------------------------------------------------------------------------------

/** A raw timer or a raw now; `server.setTimeout(...)` (a method of Node's HTTP server) is not one. */
const RAW_TIME = /(?<![.\w])(?:setTimeout|setInterval)\s*\(|\bDate\.now\b/;

/** The clock module itself, and the deliberate exceptions, each with why it is not on the injected clock. */
const RAW_TIME_ALLOWED: Record<string, string> = {
  "server/clock.ts": "the clock module: systemClock is where real time comes from",
  "server/provider/transport.ts":
    "drainAfterDone's grace bounds how long a finished body holds a socket (unref'd); `done` is already out, so no caller sees it",
  "server/db/checkpointer.ts":
    "runs in a worker thread, which has no Clock; its interval is handed in by the main thread",
  "server/uploads/upload-service.ts":
    "an unref'd interval only wakes the sweep of idle uploads; what is idle is decided on the injected Clock, whose sleep a test's clock would hold as a timer it means to fire",
};

it('keeps raw timers and Date.now in the clock module (docs/server.md "Time")', () => {
  const found = findInServer(RAW_TIME).filter((at) => !(withoutLine(at) in RAW_TIME_ALLOWED));
  expect(found).toEqual([]);
  // Every exception is still needed: one that no longer holds a raw timer is taken off the list.
  const stale = Object.keys(RAW_TIME_ALLOWED).filter(
    (file) => !findInServer(RAW_TIME).some((at) => withoutLine(at) === file),
  );
  expect(stale).toEqual([]);
});

// --- logging --------------------------------------------------------------------------------------------------

const LEVEL = "(?:trace|debug|info|warn|error|fatal)";
/** A log call whose first argument is a message (`log.warn("...")`, `log.info(\`...\`)`) instead of the facts. */
const MESSAGE_FIRST = new RegExp(`\\blog\\??\\.${LEVEL}\\(\\s*["'\`]`);
/** A message that interpolates facts (`log.warn({...}, \`ended ${n} ...\`)`): they belong in the object. */
const INTERPOLATED_MESSAGE = new RegExp(`\\blog\\??\\.${LEVEL}\\((?:[^;]|\\n)*?,\\s*\`[^\`]*\\$\\{`);
/** Another logger altogether. */
const CONSOLE = /\bconsole\.\w+\(/;

/** Lines in directories another branch owns at the time of writing: the lead converts them when the branches meet. */
const LOG_SHAPE_PENDING: Record<string, string> = {
  "server/runner/recovery.ts":
    "interpolates the count into the message; server/runner/ was being edited by the mcp branch",
};

it('logs in pino\'s call shape, log.level({facts}, "constant message") (docs/server.md "Logging")', () => {
  const found = [...findInServer(MESSAGE_FIRST), ...findInServer(INTERPOLATED_MESSAGE), ...findInServer(CONSOLE)];
  expect(found.filter((at) => !(withoutLine(at) in LOG_SHAPE_PENDING))).toEqual([]);
  // The log calls are found at all (a broken pattern would pass everything).
  expect(findInServer(new RegExp(`\\blog\\??\\.${LEVEL}\\(\\s*\\{`)).length).toBeGreaterThan(40);
});

// --- errors ---------------------------------------------------------------------------------------------------

it('answers every refusal from one error family, DomainError (docs/server.md "Errors: one family")', () => {
  // The HTTP layer declares no error class of its own ...
  expect(findInServer(/\bclass\s+\w+\s+extends\s+Error\b/).filter((at) => at.startsWith("server/http/"))).toEqual([]);
  // ... and the error handler recognises exactly one: what it does not know is a logged 500.
  const handler = code(join(SERVER, "http/error-handler.ts"));
  expect([...handler.matchAll(/instanceof\s+(\w+)/g)].map((m) => m[1])).toEqual(["DomainError", "SyntaxError"]);
  // Any other class a route could throw to the handler would extend DomainError (as CursorExpiredError does).
  const refusals = findInServer(/\bclass\s+\w+\s+extends\s+DomainError\b/);
  expect(refusals.length).toBeGreaterThan(0);
});
