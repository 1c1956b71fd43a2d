// The server's house rules, read from the source (docs/server.md): one clock module, pino's one call shape (the
// bridge's too), one error family. Like server-layout.test.ts, these fail on the line that breaks a rule, whoever writes it next.
import { join } from "node:path";
import { expect, it } from "vitest";
import { code, findIn, ROOT, withoutLine } from "./support/source-code.ts";

const SERVER = join(ROOT, "server");

/** `file:line` of every match of `pattern` in the server's code (comments left out). */
const findInServer = (pattern: RegExp) => findIn(["server"], pattern);

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
/** The bridge's old shape, `log.log("warn", "message", {facts})`: the level as an argument, the message before the facts. */
const LEVEL_ARGUMENT = new RegExp(`\\.log\\(\\s*["']${LEVEL}["']`);

/** Lines in directories another branch owns at the time of writing: the lead converts them when the branches meet. */
const LOG_SHAPE_PENDING: Record<string, string> = {
  "server/runner/recovery.ts":
    "interpolates the count into the message; server/runner/ was being edited by the mcp branch",
};

it('logs in pino\'s call shape, log.level({facts}, "constant message"), in the server and the bridge (docs/server.md "Logging")', () => {
  const areas = ["server", "bridge"];
  const found = [MESSAGE_FIRST, INTERPOLATED_MESSAGE, CONSOLE, LEVEL_ARGUMENT].flatMap((rule) => findIn(areas, rule));
  expect(found.filter((at) => !(withoutLine(at) in LOG_SHAPE_PENDING))).toEqual([]);
  // The log calls are found at all, in both (a broken pattern would pass everything).
  const calls = new RegExp(`\\blog\\??\\.${LEVEL}\\(\\s*\\{`);
  expect(findIn(["server"], calls).length).toBeGreaterThan(40);
  expect(findIn(["bridge"], calls).length).toBeGreaterThan(30);
  // The old bridge shape is recognised when it is written.
  expect(LEVEL_ARGUMENT.test('core.log.log("warn", "server join refused", { reason })')).toBe(true);
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
