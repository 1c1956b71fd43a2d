// The access table as a matrix (docs/people.md "Sharing", N29): four people against one chat (its owner, a person it
// is shared with `write`, one with `read`, one with no share) times every chat action, over a real server, a SQLite
// file and the scripted chat-completions backend. Allowed is 2xx; refused for a share holder is 403
// share_access_denied; no access at all is 404 session_not_found. Every cell gets its own freshly made chat, so no
// cell depends on another's order or outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chunk,
  dialectStream,
  startScriptedBackend,
  type ScriptedBackend,
} from "../../scripts/scripted-backend/index.ts";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { waitForEvent } from "../runner/helpers.ts";
import { pairDevice, startHousehold, type Household, type TestDevice } from "./support.ts";

type Principal = "owner" | "write" | "read" | "none";
type Method = "GET" | "POST" | "PATCH" | "DELETE";
interface Answer {
  status: number;
  json: any;
  text: string;
}
interface Cell {
  chat: string;
  device: TestDevice;
}

let backend: ScriptedBackend;
let h: Household;
let stranger: { id: string; device: TestDevice };

beforeAll(async () => {
  // Every request is answered by the fallback unless a cell queues its own (a held stream), so a refused call leaves
  // nothing queued for the next cell.
  backend = await startScriptedBackend({ fallback: dialectStream("openai", { content: "a reply" }) });
  h = await startHousehold({
    providers: { local: { provider: "reference_compatible", base_url: backend.url, model: "scripted" } },
  });
  const added = await h.server.request({ method: "POST", url: "/people", payload: { name: "Eve" } });
  stranger = { id: added.json.person.id, device: pairDevice(h.server, added.json.person.id, "Eve phone", true) };
});
afterAll(async () => {
  await h.server.close();
  await backend.close();
});

const deviceOf = (who: Principal): TestDevice =>
  ({ owner: h.admin.e2e, write: h.adult.e2e, read: h.child.e2e, none: stranger.device })[who];

function call(token: string, method: Method, url: string, payload?: object): Promise<Answer> {
  return h.server.request({ method, url, token, ...(payload ? { payload } : {}) });
}

/** Starts a request as `token` (the backend answers it with its fallback reply), and waits for it to end. */
async function runRequest(token: string, chat: string, path: string, body: object): Promise<Answer> {
  const answer = await call(token, "POST", `/sessions/${chat}${path}`, body);
  if (answer.status === 202) await waitForEvent(h.server, answer.json.request_id);
  return answer;
}

/** Starts a request as `starter` held mid-stream by the backend, asks to cancel it as the cell's device, then ends it. */
async function cancelRunning(cell: Cell, starter: string): Promise<Answer> {
  backend.script({ kind: "stream", parts: [{ data: chunk({ content: "thinking" }) }], pauseAfter: 0 });
  const started = await call(starter, "POST", `/sessions/${cell.chat}/send`, { content: "to cancel" });
  expect(started.status, started.text).toBe(202);
  const paused = await backend.nextPause();
  const answer = await at(cell, "POST", `/requests/${started.json.request_id}/cancel`, {});
  paused.resume();
  await waitForEvent(h.server, started.json.request_id);
  return answer;
}

/** A fresh chat of the owner's holding a user and an assistant message, shared `write` with Ana and `read` with Kid. */
async function freshChat(): Promise<string> {
  const owner = h.admin.e2e.token;
  const created = await call(owner, "POST", "/sessions", {});
  const chat = created.json.session.id as string;
  for (const [role, content] of [
    ["user", "q1"],
    ["assistant", "a1"],
  ])
    expect((await call(owner, "POST", `/sessions/${chat}/messages`, { role, content })).status).toBe(201);
  for (const [person_id, access] of [
    [h.adult.id, "write"],
    [h.child.id, "read"],
  ])
    expect((await call(owner, "POST", `/sessions/${chat}/shares`, { person_id, access })).status).toBe(200);
  return chat;
}

/** A session notification asking a question (what an approval is): the cheapest one the stack makes. */
function approvalIn(chat: string): string {
  const plugin = createNotificationApi(h.server.runtime.ctx.notifications, "access-matrix").session(chat);
  return plugin.create({ key: `ask-${chat}`, kind: "interaction", severity: "info", title: "Go on?" }).id;
}

/** A flag set by one person is theirs alone: the owner's view, or Ana's when the owner set it, stays unflagged. */
async function expectFlagOwnOnly(who: Principal, chat: string, flag: "pinned" | "archived"): Promise<void> {
  const mine = await call(deviceOf(who).token, "GET", `/sessions/${chat}`);
  expect(mine.json.session[flag]).toBe(true);
  const other = who === "owner" ? h.adult.e2e.token : h.admin.e2e.token;
  const theirs = await call(other, "GET", `/sessions/${chat}`);
  expect(theirs.json.session[flag] ?? false).toBe(false);
}

interface Action {
  name: string;
  allowed: readonly Principal[];
  run(cell: Cell, who: Principal): Promise<Answer>;
  /** What else an allowed answer must have done. */
  check?(cell: Cell, who: Principal, answer: Answer): Promise<void>;
}

const ALL: readonly Principal[] = ["owner", "write", "read"];
const WRITERS: readonly Principal[] = ["owner", "write"];
const OWNER: readonly Principal[] = ["owner"];
const at = (cell: Cell, method: Method, path: string, body?: object) =>
  call(cell.device.token, method, `/sessions/${cell.chat}${path}`, body);

const ACTIONS: Action[] = [
  { name: "read the chat", allowed: ALL, run: (c) => at(c, "GET", "") },
  { name: "read its messages", allowed: ALL, run: (c) => at(c, "GET", "/messages") },
  {
    name: "read its events",
    allowed: ALL,
    run: (c) => call(c.device.token, "GET", `/events?since_id=0&session_id=${c.chat}`),
    check: async (_c, _w, answer) => expect(answer.text).toContain("q1"),
  },
  { name: "send", allowed: WRITERS, run: (c) => runRequest(c.device.token, c.chat, "/send", { content: "hi" }) },
  { name: "regenerate", allowed: WRITERS, run: (c) => runRequest(c.device.token, c.chat, "/regenerate", {}) },
  {
    name: "resend",
    allowed: WRITERS,
    run: (c) => runRequest(c.device.token, c.chat, "/messages/0/resend", { content: "q1 again" }),
  },
  {
    name: "switch version",
    allowed: WRITERS,
    run: async (c) => {
      await runRequest(h.admin.e2e.token, c.chat, "/regenerate", {}); // the owner makes a second version
      return at(c, "POST", "/messages/0/version", { version: 1 });
    },
  },
  {
    name: "cancel own request",
    allowed: WRITERS,
    // A running request of the caller's own where it may start one; otherwise the owner's, the only one there is.
    run: (c, who) => cancelRunning(c, WRITERS.includes(who) ? c.device.token : h.admin.e2e.token),
  },
  {
    name: "cancel another person's request",
    allowed: OWNER,
    // The owner cancels Ana's request; everyone else the owner's.
    run: (c, who) => cancelRunning(c, who === "owner" ? h.adult.e2e.token : h.admin.e2e.token),
  },
  {
    name: "answer an approval",
    allowed: WRITERS,
    run: (c) => at(c, "POST", `/notifications/${approvalIn(c.chat)}/respond`, { response: "approve" }),
  },
  { name: "export", allowed: ALL, run: (c) => at(c, "GET", "/export?format=markdown") },
  {
    name: "copy to my chats",
    allowed: ALL,
    run: (c) => at(c, "POST", "/fork", {}),
    check: async (_c, who, answer) => expect(answer.json.session.owner).toBe(personOf(who)),
  },
  { name: "rename", allowed: OWNER, run: (c) => at(c, "PATCH", "", { title: "renamed" }) },
  { name: "delete", allowed: OWNER, run: (c) => at(c, "DELETE", "") },
  { name: "edit a message", allowed: OWNER, run: (c) => at(c, "PATCH", "/messages/0", { content: "edited" }) },
  { name: "delete a message", allowed: OWNER, run: (c) => at(c, "DELETE", "/messages", { indices: [1] }) },
  { name: "change the model", allowed: OWNER, run: (c) => at(c, "PATCH", "", { model: "other-model" }) },
  {
    name: "share",
    allowed: OWNER,
    run: (c) => at(c, "POST", "/shares", { person_id: h.child.id, access: "write" }),
  },
  { name: "unshare", allowed: OWNER, run: (c) => at(c, "DELETE", `/shares/${h.child.id}`) },
  { name: "make a share link", allowed: OWNER, run: (c) => at(c, "POST", "/share-links", {}) },
  { name: "list share links", allowed: OWNER, run: (c) => at(c, "GET", "/share-links") },
  {
    name: "pin",
    allowed: ALL,
    run: (c) => at(c, "PATCH", "", { pinned: true }),
    check: (c, who) => expectFlagOwnOnly(who, c.chat, "pinned"),
  },
  {
    name: "archive",
    allowed: ALL,
    run: (c) => at(c, "PATCH", "", { archived: true }),
    check: (c, who) => expectFlagOwnOnly(who, c.chat, "archived"),
  },
];

function personOf(who: Principal): string {
  return { owner: h.admin.id, write: h.adult.id, read: h.child.id, none: stranger.id }[who];
}

function expected(action: Action, who: Principal): string {
  if (action.allowed.includes(who)) return "2xx";
  return who === "none" ? "404 session_not_found" : "403 share_access_denied";
}

const PRINCIPALS: readonly Principal[] = ["owner", "write", "read", "none"];
const CELLS = ACTIONS.flatMap((action) => PRINCIPALS.map((who) => ({ action, who })));

describe("the access matrix (N29)", () => {
  it.each(CELLS.map((cell) => [`${cell.who} × ${cell.action.name}`, cell] as const))("%s", async (_name, cell) => {
    const { action, who } = cell;
    const chat = await freshChat();
    const answer = await action.run({ chat, device: deviceOf(who) }, who);
    const want = expected(action, who);
    if (want === "2xx") {
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(200);
      expect(answer.status, answer.text).toBeLessThan(300);
      await action.check?.({ chat, device: deviceOf(who) }, who, answer);
    } else {
      expect(`${answer.status} ${answer.json?.error?.code}`, answer.text).toBe(want);
      expect(answer.text).not.toContain("q1");
    }
  });
});
