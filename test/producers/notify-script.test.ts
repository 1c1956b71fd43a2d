// `npm run notify` (scripts/notify.ts) against a listening server, as a backup script would run it.
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { TestServer } from "../support/server.ts";
import { listeningServer, type Api } from "../search/support.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

let server: TestServer;
let api: Api;
beforeEach(async () => ({ server, api } = await listeningServer()));
afterEach(() => server.close());

function notify(args: string[], env: Record<string, string>) {
  return run(process.execPath, ["--import", "tsx", "scripts/notify.ts", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

it("P7 publishes, updates by key, resolves, and reports a refusal with the server's message", async () => {
  const { token } = (await api.call("POST", "/producers", { name: "nas" })).json;
  const env = { CHAT_RELAY_URL: api.url, PRODUCER_TOKEN: token };
  const first = await notify(["--title", "Backup done", "--severity", "success", "--body", "42 GB"], env);
  expect(first).toMatchObject({
    code: 0,
    stdout: expect.stringMatching(/ notify:backup-done pending \(revision 1\)\n$/),
  });
  expect((await notify(["--title", "Backup done"], env)).stdout).toMatch(/\(revision 2\)/);
  const [record] = (await api.call("GET", "/application/notifications")).json;
  expect(record).toMatchObject({
    title: "Backup done",
    severity: "info",
    source: { plugin: "producer:nas" },
    display: { presentation: "banner" },
  });
  const session = (await api.call("POST", "/sessions", {})).json.session.id;
  expect(
    (await notify(["--title", "Build broke", "--severity", "error", "--session", session, "--key", "ci"], env)).code,
  ).toBe(0);
  expect((await api.call("GET", `/sessions/${session}/notifications`)).json).toMatchObject([
    { key: "ci", severity: "error" },
  ]);
  expect((await notify(["--resolve", "--key", "ci", "--session", session], env)).stdout).toMatch(/ ci resolved /);
  const refused = await notify(["--title", "x"], { ...env, PRODUCER_TOKEN: "wrong" });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toBe("POST /application/notifications answered 401: a valid bearer token is required\n");
  expect((await notify(["--title", "x", "--severity", "loud"], env)).stderr).toMatch(/--severity must be one of/);
  expect((await notify([], env)).stderr).toMatch(/--title is required/);
}, 60_000); // six runs of the script, each a Node process loading TypeScript: seconds apiece on a loaded machine
