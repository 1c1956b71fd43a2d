// People and sharing under generated cases (docs/people.md "Access" and "Sharing"): after any sequence of new chats,
// shares, unshares, renames, deletions, removals with their chats deleted or transferred, and new people, on a real
// server (SQLite file, the HTTP routes), each person's device gets exactly what a plain model of the rules says:
// GET /events holds the events of the chats the person may see now and none of any other chat (an access change
// excepted: it is the person's own), the last access change it holds for a chat says whether it may see it, the
// list holds exactly the person's live chats, every route answers a chat it may not see as 404, and a removed
// person's device is refused (401).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { itHolds } from "../support/properties.ts";
import type { TestServer } from "../support/server.ts";
import { pairDevice, shareChat, startHousehold, unshareChat, type Household } from "../people/support.ts";

type Access = "read" | "write";
type Op =
  | { kind: "chat"; owner: number }
  | { kind: "share"; chat: number; person: number; access: Access }
  | { kind: "unshare"; chat: number; person: number }
  | { kind: "rename"; chat: number; actor: number }
  | { kind: "delete"; chat: number }
  | { kind: "remove"; person: number; heir: number | null }
  | { kind: "person" };

const pick = fc.nat({ max: 50 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("chat" as const), owner: pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("share" as const),
      chat: pick,
      person: pick,
      access: fc.constantFrom<Access>("read", "write"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("unshare" as const), chat: pick, person: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("rename" as const), chat: pick, actor: pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), chat: pick }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("remove" as const), person: pick, heir: fc.option(pick, { nil: null }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "person" as const }) },
);

/** The plain model: who owns each chat, who holds which share, who is live. */
interface ModelPerson {
  id: string;
  token: string;
  live: boolean;
}
interface ModelChat {
  id: string;
  /** Who made it: the one person who never needs to be told of gaining it. */
  creator: ModelPerson;
  owner: ModelPerson;
  /** The people who held a share when it was deleted: each must be told of losing it. */
  sharedAtDeletion: string[];
  shares: Map<string, Access>;
  deleted: boolean;
}

function mayRead(person: ModelPerson, chat: ModelChat): boolean {
  return chat.owner.id === person.id || chat.shares.has(person.id);
}

interface Event {
  type: string;
  session_id?: string;
}

// One server for every generated case: each case makes its own people and chats and looks only at those.
let household: Household;
let server: TestServer;
beforeAll(async () => {
  household = await startHousehold();
  server = household.server;
});
afterAll(() => server.close());

let names = 0;
async function newPerson(): Promise<ModelPerson> {
  const answer = await server.request({ method: "POST", url: "/people", payload: { name: `P${++names}` } });
  expect(answer.status).toBe(201);
  const id = answer.json.person.id as string;
  return { id, token: pairDevice(server, id, "phone", false).token, live: true };
}

async function latestEventId(): Promise<string> {
  const answer = await server.request({ method: "GET", url: "/events" });
  return answer.json.latest_event_id as string;
}

async function eventsSince(token: string, since: string): Promise<Event[]> {
  const events: Event[] = [];
  for (let cursor = since; ;) {
    const answer = await server.request({ method: "GET", url: `/events?since_id=${cursor}&limit=500`, token });
    expect(answer.status).toBe(200);
    events.push(...(answer.json.events as Event[]));
    if (!answer.json.has_more) return events;
    cursor = answer.json.next_since_id;
  }
}

/** Runs one step against the server and the model alike; the server's status must be the one the model predicts. */
async function step(s: Op, people: ModelPerson[], chats: ModelChat[]): Promise<void> {
  const live = people.filter((p) => p.live);
  const open = chats.filter((c) => !c.deleted);
  const someone = (n: number) => live[n % live.length]!;
  const chatAt = (n: number) => open[n % open.length];
  if (s.kind === "person") people.push(await newPerson());
  else if (s.kind === "chat") {
    const owner = someone(s.owner);
    const answer = await server.request({ method: "POST", url: "/sessions", token: owner.token, payload: {} });
    expect(answer.status).toBe(201);
    chats.push({
      id: answer.json.session.id,
      creator: owner,
      owner,
      sharedAtDeletion: [],
      shares: new Map(),
      deleted: false,
    });
  } else if (s.kind === "share") {
    const chat = chatAt(s.chat);
    if (!chat) return;
    const person = someone(s.person);
    const answer = await shareChat(server, chat.owner.token, chat.id, person.id, s.access);
    if (person.id === chat.owner.id) expect(answer.status).toBe(400);
    else {
      expect(answer.status).toBe(200);
      chat.shares.set(person.id, s.access);
    }
  } else if (s.kind === "unshare") {
    const chat = chatAt(s.chat);
    if (!chat) return;
    const person = someone(s.person);
    const answer = await unshareChat(server, chat.owner.token, chat.id, person.id);
    expect(answer.status).toBe(chat.shares.has(person.id) ? 204 : 404);
    chat.shares.delete(person.id);
  } else if (s.kind === "rename") {
    const chat = chatAt(s.chat);
    if (!chat) return;
    const actor = someone(s.actor);
    const answer = await server.request({
      method: "PATCH",
      url: `/sessions/${chat.id}`,
      token: actor.token,
      payload: { title: `renamed by ${actor.id}` },
    });
    expect(answer.status).toBe(chat.owner.id === actor.id ? 200 : mayRead(actor, chat) ? 403 : 404);
  } else if (s.kind === "delete") {
    const chat = chatAt(s.chat);
    if (!chat) return;
    const answer = await server.request({ method: "DELETE", url: `/sessions/${chat.id}`, token: chat.owner.token });
    expect(answer.status).toBe(204);
    chat.sharedAtDeletion = [...chat.shares.keys()];
    chat.deleted = true;
  } else if (s.kind === "remove") {
    if (live.length < 2) return;
    const person = someone(s.person);
    const heirs = live.filter((p) => p !== person);
    const heir = s.heir === null ? undefined : heirs[s.heir % heirs.length]!;
    const chatsRule = heir ? `transfer&to=${heir.id}` : "delete";
    const answer = await server.request({ method: "DELETE", url: `/people/${person.id}?chats=${chatsRule}` });
    expect(answer.status).toBe(204);
    person.live = false;
    for (const chat of chats) {
      chat.shares.delete(person.id);
      if (chat.owner !== person || chat.deleted) continue;
      if (heir) {
        chat.owner = heir;
        chat.shares.delete(heir.id);
      } else {
        chat.sharedAtDeletion = [...chat.shares.keys()];
        chat.deleted = true;
      }
    }
  }
}

/** What each person's device holds at the end, against the model. */
async function check(since: string, people: ModelPerson[], chats: ModelChat[]): Promise<void> {
  const ours = new Set(chats.map((c) => c.id));
  for (const person of people) {
    if (!person.live) {
      const refused = await server.request({ method: "GET", url: `/events?since_id=${since}`, token: person.token });
      expect(refused.status).toBe(401);
      continue;
    }
    const events = (await eventsSince(person.token, since)).filter((e) => e.session_id && ours.has(e.session_id));
    const isAccessChange = (e: Event) => e.type === "session_access_granted" || e.type === "session_access_revoked";
    for (const chat of chats) {
      const of = events.filter((e) => e.session_id === chat.id);
      const content = of.filter((e) => !isAccessChange(e));
      const readable = mayRead(person, chat);
      if (chat.deleted) {
        // A deleted chat's events are erased with it; its owner's devices keep the one that says so.
        expect(
          content.map((e) => e.type),
          `${person.id} sees what is left of ${chat.id}`,
        ).toEqual(readable ? ["session_deleted"] : []);
      } else expect(content.length > 0, `${person.id} sees events of ${chat.id}`).toBe(readable);
      const lastChange = of.filter(isAccessChange).at(-1);
      if (lastChange && !chat.deleted)
        expect(lastChange.type, `${person.id}'s last access change of ${chat.id}`).toBe(
          readable ? "session_access_granted" : "session_access_revoked",
        );
      // Whoever gained the chat after it was made (a share, a transfer) was told; whoever held a share of a deleted
      // chat was told it went.
      if (readable && !chat.deleted && chat.creator !== person) expect(lastChange?.type).toBe("session_access_granted");
      if (chat.deleted && chat.sharedAtDeletion.includes(person.id))
        expect(lastChange?.type).toBe("session_access_revoked");
      const read = await server.request({ method: "GET", url: `/sessions/${chat.id}`, token: person.token });
      expect(read.status, `GET /sessions/${chat.id} for ${person.id}`).toBe(readable && !chat.deleted ? 200 : 404);
    }
    const list = await server.request({ method: "GET", url: "/sessions?limit=200", token: person.token });
    const listed = (list.json.sessions as Array<{ id: string }>).map((s) => s.id).filter((id) => ours.has(id));
    const expected = chats.filter((c) => !c.deleted && mayRead(person, c)).map((c) => c.id);
    expect(listed.sort()).toEqual(expected.sort());
  }
}

describe("people and sharing after any sequence of shares, unshares, transfers and removals", () => {
  itHolds(
    "each device gets exactly the chats its person may see, by the plain model of the rules",
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const since = await latestEventId();
      const people = [await newPerson(), await newPerson(), await newPerson()];
      const chats: ModelChat[] = [];
      for (const s of ops) await step(s, people, chats);
      await check(since, people, chats);
    }),
    { runs: 40, ms: 120_000 },
  );
});
