// A real server for tests: a SQLite file in a fresh temp dir, the real app, the admin token known.
import { rmSync } from "node:fs";
import type { InjectOptions } from "fastify";
import { parseConfig } from "../../server/config/load.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../server/runtime.ts";
import { tempDir } from "./temp-dir.ts";

export const ADMIN_TOKEN = "test-admin-token";

export interface TestServer {
  runtime: Runtime;
  dataDir: string;
  /** app.inject with the admin token (or `token`) and JSON handling. */
  request(options: InjectOptions & { token?: string | null }): Promise<{ status: number; json: any; text: string }>;
  /** Closes the runtime; `keepData` leaves the temp dir for a restart. */
  close(keepData?: boolean): Promise<void>;
}

export { tempDir };

/** A browser's CORS preflight for a POST to /sessions from another origin: no token, as browsers send it. */
export const PREFLIGHT = {
  method: "OPTIONS",
  url: "/sessions",
  token: null,
  headers: { "origin": "http://app.example", "access-control-request-method": "POST" },
} as const;

export async function startTestServer(
  config: ConfigInput = {},
  options: Partial<RuntimeOptions> & { dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  // Titles written by the model are off unless a test asks: their completion would take a scripted scenario.
  const runtime = createRuntime({
    config: parseConfig({ titles: { enabled: false }, ...config }),
    dataDir,
    adminToken: ADMIN_TOKEN,
    ...options,
  });
  await runtime.app.ready();
  return {
    runtime,
    dataDir,
    async request({ token = ADMIN_TOKEN, headers, ...rest }) {
      const response = await runtime.app.inject({
        ...rest,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      } as InjectOptions);
      let json: unknown;
      try {
        json = response.json();
      } catch {
        json = undefined;
      }
      return { status: response.statusCode, json, text: response.body };
    },
    async close(keepData = false) {
      await runtime.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A device paired straight on the server (no bridge), as `name`: its id and token. */
export function pairedDevice(server: TestServer, name = "phone") {
  const { pairing } = server.runtime.ctx;
  const paired = pairing.redeem(pairing.createCode().code, name);
  if (!paired.ok) throw new Error(`pairing failed: ${paired.reason}`);
  return paired;
}
