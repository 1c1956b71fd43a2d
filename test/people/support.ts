// A server with people for the people suites: an admin (the Owner every server starts with), an adult and a child
// member, each with two devices (one end to end, one plain), paired through the pairing service as the bridge would.
import { generateKeyPair } from "../../client/wire/crypto/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

export interface TestDevice {
  device_id: string;
  token: string;
  secret_key?: string;
}

export interface TestPerson {
  id: string;
  name: string;
  e2e: TestDevice;
  plain: TestDevice;
}

export interface Household {
  server: TestServer;
  admin: TestPerson;
  adult: TestPerson;
  child: TestPerson;
  /** Closes the server (useClosing's `own` calls it after the test). */
  close(): Promise<void>;
}

export function pairDevice(server: TestServer, personId: string, name: string, e2e: boolean): TestDevice {
  const pairing = server.runtime.ctx.pairing;
  const keys = e2e ? generateKeyPair() : undefined;
  const redeemed = pairing.redeem(pairing.createCode(personId).code, name, keys?.publicKey);
  if (!redeemed.ok) throw new Error(redeemed.reason);
  return {
    device_id: redeemed.device_id,
    token: redeemed.device_token,
    ...(keys ? { secret_key: keys.secretKey } : {}),
  };
}

async function addPerson(server: TestServer, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const answer = await server.request({ method: "POST", url: "/people", payload: body });
  if (answer.status !== 201) throw new Error(`POST /people: ${answer.status} ${answer.text}`);
  return answer.json.person;
}

function withDevices(server: TestServer, person: { id: string; name: string }): TestPerson {
  return {
    ...person,
    e2e: pairDevice(server, person.id, `${person.name} phone`, true),
    plain: pairDevice(server, person.id, `${person.name} laptop`, false),
  };
}

export async function startHousehold(
  config: ConfigInput = {},
  options: Parameters<typeof startTestServer>[1] = {},
): Promise<Household> {
  const server = await startTestServer(
    {
      agents: { default: { provider_id: "local" }, kids: { provider_id: "local" } },
      providers: { local: { provider: "reference_compatible", base_url: "http://127.0.0.1:9/v1", model: "m" } },
      ...config,
    },
    options,
  );
  const owner = server.runtime.ctx.personStore.actingAdmin();
  const adult = await addPerson(server, { name: "Ana", role: "member" });
  const child = await addPerson(server, { name: "Kid", role: "member", agents: ["kids"], max_requests_per_day: 2 });
  return {
    server,
    admin: withDevices(server, owner),
    adult: withDevices(server, adult),
    child: withDevices(server, child),
    close: () => server.close(),
  };
}

/** A chat owned by the person whose device token is given, with one user message carrying `marker`. */
export async function chatOf(server: TestServer, token: string, marker: string, agentId?: string): Promise<string> {
  const created = await server.request({
    method: "POST",
    url: "/sessions",
    token,
    payload: agentId ? { agent_id: agentId } : {},
  });
  if (created.status !== 201) throw new Error(`POST /sessions: ${created.status} ${created.text}`);
  const id = created.json.session.id as string;
  const appended = await server.request({
    method: "POST",
    url: `/sessions/${id}/messages`,
    token,
    payload: { role: "user", content: marker },
  });
  if (appended.status !== 201) throw new Error(`append: ${appended.status} ${appended.text}`);
  return id;
}

/** Shares the chat with a person as `token`'s owner would (POST /sessions/{id}/shares); the answer as sent. */
export function shareChat(server: TestServer, token: string, chat: string, personId: string, access: "read" | "write") {
  return server.request({
    method: "POST",
    url: `/sessions/${chat}/shares`,
    token,
    payload: { person_id: personId, access },
  });
}

/** DELETE /sessions/{chat}/shares/{personId} with `token`. */
export function unshareChat(server: TestServer, token: string, chat: string, personId: string) {
  return server.request({ method: "DELETE", url: `/sessions/${chat}/shares/${personId}`, token });
}

/** Sends a message to the chat as `token` (POST /sessions/{id}/send); the answer as sent. */
export function sendAs(server: TestServer, token: string, chat: string, content: string) {
  return server.request({ method: "POST", url: `/sessions/${chat}/send`, token, payload: { content } });
}

/** A read share written straight into the store, for tests about what a share lets a person see. */
export function shareForReading(h: Household, sessionId: string, personId: string): void {
  h.server.runtime.ctx.db
    .prepare("INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES (?, ?, 'read', ?)")
    .run(sessionId, personId, Date.now());
}
