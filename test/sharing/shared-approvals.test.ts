// Approvals in a shared chat (issue 31 item 4, docs/people.md "Share links" A1): an interaction of a running request
// in the owner's chat reaches the devices of everyone who may write it (owner and write shares); a read share may not
// answer it (403) and a write share may; the answer reaches every device of the audience, so it closes everywhere at
// once. Web Push for the chat goes to the writers (server/push/index.ts asks access.ts `writers`).
import { expect, it } from "vitest";
import { chunk } from "../../scripts/scripted-backend/index.ts";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { writers } from "../../server/people/access.ts";
import { pairDevice } from "../people/support.ts";
import { createSession, send, useRunner, waitForEvent } from "../runner/helpers.ts";
import type { TestServer } from "../support/server.ts";

const runner = useRunner({});

async function states(server: TestServer, token: string, id: string): Promise<string[]> {
  const page = await server.request({ method: "GET", url: "/events?since_id=0&limit=1000", token });
  expect(page.status, page.text).toBe(200);
  return (page.json.events as Array<{ type: string; notification?: { id: string; status: string } }>)
    .filter((event) => event.notification?.id === id)
    .map((event) => `${event.type}:${event.notification!.status}`);
}

async function personWithDevice(server: TestServer, name: string): Promise<{ id: string; token: string }> {
  const made = await server.request({ method: "POST", url: "/people", payload: { name, role: "member" } });
  expect(made.status, made.text).toBe(201);
  return { id: made.json.person.id, token: pairDevice(server, made.json.person.id, `${name} phone`, false).token };
}

it("A1: the owner's and the writer's devices are asked; the reader cannot answer, the writer does; all see it closed", async () => {
  const server = runner.server;
  const owner = server.runtime.ctx.personStore.actingAdmin();
  const ownerDevice = pairDevice(server, owner.id, "owner phone", false).token;
  const [writer, reader] = [await personWithDevice(server, "Ana"), await personWithDevice(server, "Kid")];
  const chat = await createSession(server);
  for (const [person, access] of [
    [writer.id, "write"],
    [reader.id, "read"],
  ] as const) {
    const shared = await server.request({
      method: "POST",
      url: `/sessions/${chat}/shares`,
      payload: { person_id: person, access },
    });
    expect(shared.status, shared.text).toBe(200);
  }
  runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "thinking" }) }], pauseAfter: 0 });
  const requestId = await send(server, chat, { content: "ask me" });
  const paused = await runner.backend.nextPause();
  const asked = createNotificationApi(server.runtime.ctx.notifications, "test-plugin")
    .session(chat)
    .create({
      key: "confirm:test", // an "approval:" key is answerable only while an MCP call waits on it
      kind: "interaction",
      severity: "info",
      title: "Run the tool?",
      request_id: requestId,
      retention: { policy: "until_resolved" },
    });
  for (const token of [ownerDevice, writer.token])
    expect(await states(server, token, asked.id)).toEqual(["session_notification_created:pending_response"]);

  const respond = (token: string) =>
    server.request({
      method: "POST",
      url: `/sessions/${chat}/notifications/${asked.id}/respond`,
      token,
      payload: { response: "approve" },
    });
  const refused = await respond(reader.token);
  expect([refused.status, refused.json.error.code]).toEqual([403, "share_access_denied"]);
  const answered = await respond(writer.token);
  expect(answered.status, answered.text).toBe(200);
  expect(answered.json).toMatchObject({ id: asked.id, status: "responded" });
  for (const token of [ownerDevice, writer.token, reader.token])
    expect((await states(server, token, asked.id)).at(-1)).toMatch(/:responded$/);
  expect((await respond(ownerDevice)).status).toBe(409);
  expect(writers(server.runtime.ctx.audiences.of(chat)!).sort()).toEqual([owner.id, writer.id].sort());

  paused.resume();
  await waitForEvent(server, requestId);
});
