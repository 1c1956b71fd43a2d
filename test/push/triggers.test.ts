// What is pushed (docs/push.md "What is pushed", invariants P3-P5): approvals, warnings, finished replies and their
// quiet "done", delivered through the loopback push service, which checks the VAPID signature and decrypts.
import { expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { waitForEvent } from "../runner/helpers.ts";
import { PushHarness, type TestDevice } from "./support/harness.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

const approval = {
  key: "approval:req_1:0",
  kind: "interaction",
  severity: "warning",
  title: "mcp__files__write_file",
  body: '{"path": "/etc/motd"}',
} as const;

it("a pending approval is pushed at once with Urgency high, the time left as TTL and no Topic; answering it sends a quiet done", async () => {
  const h = closing.own(await PushHarness.start());
  const phone = await h.device();
  const sid = await h.newSession();
  const record = h.api
    .session(sid)
    .create({ ...approval, retention: { policy: "ttl", expires_at: new Date(h.clock.time + 300_000).toISOString() } });
  const [pushed] = await h.received(phone);
  expect(pushed).toEqual({
    v: 1,
    type: "approval",
    tag: record.id,
    title: "mcp__files__write_file",
    session_id: sid,
    notification_id: record.id,
  });
  expect(h.tapped(phone)[0]!.headers).toMatchObject({ urgency: "high", ttl: "300" });
  expect(h.tapped(phone)[0]!.headers.topic).toBeUndefined();

  h.api.session(sid).respond({ key: approval.key });
  h.api.session(sid).resolve({ key: approval.key });
  const messages = await h.received(phone);
  expect(messages).toHaveLength(2);
  expect(messages[1]).toEqual({
    v: 1,
    type: "done",
    tag: record.id,
    title: "mcp__files__write_file",
    body: "Answered",
    session_id: sid,
    notification_id: record.id,
  });
  expect(h.tapped(phone)[1]!.headers.urgency).toBe("low");
});

it("an approval without a deadline gets push.interaction_ttl_seconds less the time already gone", async () => {
  const h = closing.own(await PushHarness.start({ interaction_ttl_seconds: 120 }));
  const phone = await h.device();
  const sid = await h.newSession();
  h.api.session(sid).create({ ...approval, key: "approval:a" });
  await h.received(phone);
  h.clock.time += 30_000;
  h.api.session(sid).updateByKey({ ...approval, key: "approval:a", title: "mcp__files__write_file (2)" });
  await h.received(phone);
  expect(h.tapped(phone).map((push) => push.headers.ttl)).toEqual(["120", "90"]);
});

it("a notification is pushed while pending at warning or above; its updates replace it by tag; its dismissal sends done", async () => {
  const h = closing.own(await PushHarness.start());
  const phone = await h.device();
  h.api.application.create({ key: "build", severity: "info", title: "Build started" });
  expect(await h.received(phone)).toEqual([]);
  const record = h.api.application.updateByKey({
    key: "build",
    severity: "warning",
    title: "Build slow",
    body: "step 3 of 9",
  });
  await h.received(phone);
  h.api.application.updateByKey({ key: "build", severity: "error", title: "Build failed", body: "step 4: exit 1" });
  await h.received(phone);
  const res = await h.server.request({
    method: "POST",
    url: `/application/notifications/${record.id}/dismiss`,
    payload: {},
  });
  expect(res.status).toBe(200);
  const messages = await h.received(phone);
  expect(messages.map((m) => [m.type, m.tag, m.title, m.body])).toEqual([
    ["notification", record.id, "Build slow", undefined],
    ["notification", record.id, "Build failed", undefined],
    ["done", record.id, "Build failed", "Dismissed"],
  ]);
  const headers = h.tapped(phone).map((push) => push.headers);
  expect(headers.map((hd) => hd.urgency)).toEqual(["normal", "high", "low"]);
  // One Topic for the record: a push service holding an undelivered one replaces it.
  expect(new Set(headers.map((hd) => hd.topic)).size).toBe(1);
  expect(headers[0]!.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
});

it("push.min_severity decides which notifications are pushed; interactions are pushed whatever their severity", async () => {
  const h = closing.own(await PushHarness.start({ min_severity: "error" }));
  const phone = await h.device();
  const sid = await h.newSession();
  h.api.application.create({ key: "w", severity: "warning", title: "Low disk" });
  h.api.application.resolve({ key: "w" });
  h.api.session(sid).create({ key: "e", severity: "error", title: "Tool crashed" });
  h.api.session(sid).create({ ...approval, severity: "info" });
  expect((await h.received(phone)).map((m) => [m.type, m.title])).toEqual([
    ["notification", "Tool crashed"],
    ["approval", "mcp__files__write_file"],
  ]);
});

it("by default a push carries no text: the notification's title only; a device with previews gets the body too", async () => {
  const h = closing.own(await PushHarness.start());
  const phone = await h.device("phone");
  const tablet = await h.device("tablet");
  await h.server.request({ method: "PATCH", url: "/push/settings", token: tablet.token, payload: { preview: true } });
  const sid = await h.newSession();
  h.api.session(sid).create(approval);
  const [plain] = await h.received(phone);
  const [preview] = await h.received(tablet);
  expect(plain.body).toBeUndefined();
  expect(JSON.stringify(plain)).not.toContain("/etc/motd");
  expect(preview.body).toBe('{"path": "/etc/motd"}');
});

/** The server's config with the scripted backend as its provider. */
const scriptedBy = (backend: ScriptedBackend) => ({
  providers: { default: { provider: "reference_compatible", model: "scripted", base_url: backend.url } },
});

/** A push harness whose replies the scripted backend writes; both closed after the test. */
async function replyHarness(): Promise<{ h: PushHarness; backend: ScriptedBackend }> {
  const backend = closing.own(await startScriptedBackend());
  return { h: closing.own(await PushHarness.start({}, scriptedBy(backend))), backend };
}

/** A device of `h` that asked for previews, while the server knows no device is connected. */
async function previewDevice(h: PushHarness): Promise<TestDevice> {
  const phone = await h.device();
  await h.server.request({ method: "PATCH", url: "/push/settings", token: phone.token, payload: { preview: true } });
  h.server.runtime.ctx.pairing.setConnected([]);
  return phone;
}

async function ask(harness: PushHarness, sid: string, content: string): Promise<void> {
  const sent = await harness.server.request({ method: "POST", url: `/sessions/${sid}/send`, payload: { content } });
  expect(sent.status, sent.text).toBe(202);
  await waitForEvent(harness.server, sent.json.request_id);
}

/** One device and one chat of a fresh reply harness, the chat answered "ok" once. */
async function answeredOnce(): Promise<{ h: PushHarness; phone: TestDevice; sid: string }> {
  const { h, backend } = await replyHarness();
  const phone = await h.device();
  const sid = await h.newSession();
  backend.script(dialectStream("openai", { content: "ok" }));
  await ask(h, sid, "hi");
  return { h, phone, sid };
}

it("a finished reply goes to every device without a live connection, the sender included, as 'New reply' without text", async () => {
  const { h, backend } = await replyHarness();
  const phone = await h.device("phone");
  const laptop = await h.device("laptop");
  // What the bridge's devices_seen says: the laptop has a socket open now.
  h.server.runtime.ctx.pairing.setConnected([laptop.id]);
  const sid = await h.newSession();
  backend.script(dialectStream("openai", { content: "The secret answer is 42." }));
  const sent = await h.server.request({
    method: "POST",
    url: `/sessions/${sid}/send`,
    token: phone.token,
    payload: { content: "What is the secret?" },
  });
  await waitForEvent(h.server, sent.json.request_id);
  expect(await h.received(phone)).toEqual([
    { v: 1, type: "reply", tag: `reply:${sid}`, title: "New reply", session_id: sid },
  ]);
  expect(await h.received(laptop)).toEqual([]);
});

it("with previews a reply carries the chat's title and its first words; a newer reply in the chat has the same tag", async () => {
  const { h, backend } = await replyHarness();
  const phone = await previewDevice(h);
  const sid = await h.newSession();
  backend.script(
    dialectStream("openai", { content: "First answer." }),
    dialectStream("openai", { content: "Second answer." }),
  );
  await ask(h, sid, "Plan the trip");
  await ask(h, sid, "And the hotel?");
  expect((await h.received(phone)).map((m) => [m.tag, m.title, m.body])).toEqual([
    [`reply:${sid}`, "Plan the trip", "First answer."],
    [`reply:${sid}`, "Plan the trip", "Second answer."],
  ]);
});

it("when the server cannot know who is connected (no bridge link), every device gets the reply, marked skip_if_focused", async () => {
  const { h, phone, sid } = await answeredOnce();
  expect(await h.received(phone)).toEqual([
    { v: 1, type: "reply", tag: `reply:${sid}`, title: "New reply", session_id: sid, skip_if_focused: true },
  ]);
});

it("a request that fails pushes no reply, and push.replies false pushes none at all", async () => {
  const { h, backend } = await replyHarness();
  const phone = await h.device();
  const sid = await h.newSession();
  // No scenario queued: the backend answers 500, the request ends with `error`.
  await ask(h, sid, "hi");
  expect(await h.received(phone)).toEqual([]);
  const quiet = closing.own(await PushHarness.start({ replies: false }, scriptedBy(backend)));
  const tablet = await quiet.device();
  backend.script(dialectStream("openai", { content: "ok" }));
  await ask(quiet, await quiet.newSession(), "hi");
  expect(await quiet.received(tablet)).toEqual([]);
});

it("deleting a chat replaces its reply notification with a quiet done", async () => {
  const { h, phone, sid } = await answeredOnce();
  // What DELETE /sessions/{id} publishes.
  h.server.runtime.ctx.events.publish({ type: "session_deleted", session_id: sid });
  h.server.runtime.ctx.events.publish({ type: "session_deleted", session_id: "never-replied" });
  expect((await h.received(phone)).map((m) => [m.type, m.tag, m.title])).toEqual([
    ["reply", `reply:${sid}`, "New reply"],
    ["done", `reply:${sid}`, "Chat deleted"],
  ]);
});

it("a reply's preview is its words without Markdown signs (emphasis, code, links, lists, fences)", async () => {
  const { h, backend } = await replyHarness();
  const phone = await previewDevice(h);
  const sid = await h.newSession();
  const reply =
    "## Done\n\n**Saved** the `notes.md` file, see [the docs](https://example.com).\n\n- one\n- _two_\n\n```sh\nls -l\n```";
  backend.script(dialectStream("openai", { content: reply }));
  await ask(h, sid, "Save it");
  const [pushed] = await h.received(phone);
  expect(pushed.body).toBe("Done Saved the notes.md file, see the docs. one two ls -l");
});
