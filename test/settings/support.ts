// Rig of the settings suites: a server against scripted backends whose every log line is kept (to look for secrets),
// and the calls of PATCH /settings.
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, expect } from "vitest";
import type { ConfigInput } from "../../server/config/schema.ts";
import type { ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { TestClock } from "../provider/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

export interface LoggedServer extends TestServer {
  /** Every line the server logged, at every level. */
  lines: string[];
}

export async function startLoggedServer(config: ConfigInput = {}, dataDir?: string): Promise<LoggedServer> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await startTestServer(config, {
    clock: new TestClock(),
    log: pino({ level: "trace" }, stream),
    ...(dataDir ? { dataDir } : {}),
  });
  return Object.assign(server, { lines });
}

/**
 * For each test of the calling file: the function it answers starts a logged server, and after the test every one
 * started is closed, newest first. After hooks run last-registered first: call it below the file's own afterEach so
 * the servers close before what they use (the scripted backends).
 */
export function useLoggedServers() {
  const servers: LoggedServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0).reverse()) await server.close();
  });
  const start = async (...args: Parameters<typeof startLoggedServer>) => {
    const server = await startLoggedServer(...args);
    servers.push(server);
    return server;
  };
  /** A server the test closed itself (keeping its data for the next one) is not closed again. */
  const forget = (server: LoggedServer) => void servers.splice(servers.indexOf(server), 1);
  return Object.assign(start, { forget });
}

/** A provider entry on a scripted backend. */
export function scriptedProvider(backend: ScriptedBackend, extra: Record<string, unknown> = {}) {
  return { provider: "reference_compatible", model: "scripted", base_url: backend.url, ...extra };
}

export async function readSettings(server: TestServer): Promise<{ revision: number; settings: any }> {
  const res = await server.request({ method: "GET", url: "/settings" });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

export async function patchSettings(server: TestServer, patch: Record<string, unknown>, revision?: number) {
  const expected_revision = revision ?? (await readSettings(server)).revision;
  return server.request({ method: "PATCH", url: "/settings", payload: { expected_revision, patch } });
}

/** A paired device's token: of `personId`, or of the Owner (the admin person every server starts with). */
export function deviceToken(server: TestServer, personId?: string): string {
  const { pairing } = server.runtime.ctx;
  const paired = pairing.redeem(pairing.createCode(personId).code, "phone");
  if (!paired.ok) throw new Error("pairing failed");
  return paired.device_token;
}

/** A member person (no admin role) added by the admin. */
export async function addMember(server: TestServer, name = "Ana"): Promise<string> {
  const answer = await server.request({ method: "POST", url: "/people", payload: { name, role: "member" } });
  expect(answer.status, answer.text).toBe(201);
  return answer.json.person.id as string;
}
