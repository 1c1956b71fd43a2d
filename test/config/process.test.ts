// The start contract as a user meets it: the real entry point in a child process.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { tempDir } from "../support/server.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Run {
  output: () => string;
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}

function runServer(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    waiters.splice(0).forEach((w) => w());
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    output: () => output,
    exit,
    kill: (signal) => child.kill(signal),
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) return resolve(match);
          if (child.exitCode !== null) return reject(new Error(`exited before ${pattern}: ${output}`));
          waiters.push(check);
        };
        check();
      }),
  };
}

// Each case starts the real entry point through tsx: seconds on a quiet machine, far more on a loaded one.
describe("server process", { timeout: 90_000 }, () => {
  it("refuses a bad config with one line naming the key path", async () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ providers: { p: { provider: "reference_compatible", model: "m", timeout: "soon" } } }),
    );
    const run = runServer({ DATA_DIR: join(dir, "data"), CONFIG: join(dir, "config.json") });
    expect(await run.exit).toBe(2);
    expect(run.output().trim().split("\n")).toEqual([
      expect.stringMatching(/^config error at providers\.p\.timeout: /),
    ]);
  });

  it("generates the admin token once, keeps only its hash, serves, and stops cleanly on SIGTERM", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const env = { DATA_DIR: join(dir, "data"), CONFIG: "", ADMIN_TOKEN: "" };
    const first = runServer(env);
    const [, token] = await first.waitFor(/admin token \(shown once[^)]*\): (\S+)/);
    const [, url] = await first.waitFor(/server listening on (http:\/\/\S+)/);
    expect(readFileSync(join(dir, "data", "admin-token.sha256"), "utf8").trim()).toBe(sha256Hex(token!));
    expect((await fetch(`${url}/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    first.kill("SIGTERM");
    expect(await first.exit).toBe(0);

    const second = runServer(env);
    const [, url2] = await second.waitFor(/server listening on (http:\/\/\S+)/);
    expect(second.output()).not.toMatch(/admin token/);
    expect((await fetch(`${url2}/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    second.kill("SIGINT");
    expect(await second.exit).toBe(0);
  });
});
