// The plugin loader: config paths resolved against the config folder, the {name, setup(api)} contract, every
// api part handed over, and a broken plugin refused at start with one line naming plugins.<index>.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

const HERE = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function startFailing(plugins: string[]): Promise<Error> {
  const dataDir = tempDir();
  const runtime = createRuntime({ config: parseConfig({ plugins }), configDir: HERE, dataDir, adminToken: "x" });
  try {
    await runtime.app.ready();
    throw new Error("the start should have failed");
  } catch (error) {
    return error as Error;
  } finally {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

it("loads plugins relative to the config folder and hands them tools, notifications and actions", async () => {
  server = await startTestServer(
    { plugins: ["../../runner/fixtures/test-tools.ts", "./with-actions.ts"] },
    { configDir: HERE },
  );
  const { plugins } = server.runtime.ctx;
  const loaded = await plugins.load();
  expect(loaded.map((p) => [p.name, p.tools.length])).toEqual([
    ["test-tools", 6],
    ["with-actions", 1],
  ]);
  expect(plugins.tools.get("noop")?.plugin).toBe("with-actions");
  expect(server.runtime.ctx.actions.get("application", "ping")?.plugin).toBe("with-actions");
  const notes = await server.request({ method: "GET", url: "/application/notifications" });
  expect(JSON.stringify(notes.json)).toContain("with-actions loaded");
});

it.each([
  ["a missing module", ["./nope.ts"], /config error at plugins\.0: .*nope\.ts: /],
  [
    "a default export that is not {name, setup}",
    ["./not-a-plugin.ts"],
    /config error at plugins\.0: .*default export must be \{name, setup\(api\)\}/,
  ],
  [
    "a parameters schema that cannot be used",
    ["./bad-schema.ts"],
    /config error at plugins\.0: .*tool "broken" of plugin "bad-schema": parameters is not a JSON schema/,
  ],
  [
    "a tool name registered twice",
    ["../../runner/fixtures/test-tools.ts", "./duplicate.ts"],
    /config error at plugins\.1: .*tool "get_weather" of plugin "duplicate" is already registered by plugin "test-tools"/,
  ],
])("refuses to start with %s", async (_name, plugins, message) => {
  const error = await startFailing(plugins);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.message).toMatch(message);
  expect(error.message.split("\n")).toHaveLength(1);
});
