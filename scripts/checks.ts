// The checks `npm test` runs before vitest: both type checks (`npm run typecheck`'s two projects) and the formatting
// check (`npm run format:check`), at once. Each is one single-threaded process (about 30, 17 and 27 s of CPU): run one
// after the other they leave a core idle (48 s on two nearly idle cores); together, about the longest one's time (32 s).
// Each one's output is printed whole when it ends (not interleaved), and the exit code is 1 if any failed.
//   node --import tsx scripts/checks.ts
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The checks, as `npm run typecheck` and `npm run format:check` spell them (package.json). */
export const CHECKS: readonly (readonly string[])[] = [
  ["tsc", "--noEmit", "-p", "."],
  ["tsc", "--noEmit", "-p", "app"],
  ["prettier", "--check", "."],
];

interface Outcome {
  command: string;
  code: number;
  output: string;
  seconds: number;
}

/** Runs `args` from node_modules/.bin in the project's root, its stdout and stderr kept together. */
function run(args: readonly string[]): Promise<Outcome> {
  const started = Date.now();
  const [program, ...rest] = args;
  return new Promise((resolve) => {
    const child = spawn(`${root}node_modules/.bin/${program}`, rest, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    const done = (code: number) =>
      resolve({
        command: args.join(" "),
        code,
        output: Buffer.concat(chunks).toString("utf8"),
        seconds: (Date.now() - started) / 1000,
      });
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(1);
    });
    child.on("close", (code) => done(code ?? 1));
  });
}

export async function runChecks(): Promise<boolean> {
  const outcomes = await Promise.all(CHECKS.map(run));
  for (const { command, code, output, seconds } of outcomes) {
    process.stdout.write(
      `> ${command}: ${code === 0 ? "ok" : `failed (exit code ${code})`} in ${seconds.toFixed(1)} s\n`,
    );
    if (output.trim() !== "") process.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
  }
  return outcomes.every((outcome) => outcome.code === 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = (await runChecks()) ? 0 : 1;
}
