// The chat controller (app/src/state/chat.ts) without a page (docs/app.md "The chat controller", CH1-CH11): what send,
// stop, retry, regenerate, versions, edits, deletes, the draft and the scroll position do to the chat's signals and
// which server calls they make. The views over it are checked in test/app-dom and test/app.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  NetworkError,
  type AnyEvent,
  type Message,
  type PresentedNotification,
  type Session,
} from "../../client/index.ts";
import { createChat, type Chat } from "../../app/src/state/chat.ts";
import type { Frames } from "../../app/src/state/frames.ts";
import { fakeClient, liveChat, sessionOf, Value, type FakeClient } from "../app-dom/support/fake-env.ts";
import { nodeStore, type NodeStore } from "./support.ts";

const TURN: Message[] = [
  { role: "user", content: "what is 2+2?", version: 1, versions: 2 },
  { role: "assistant", content: "It is 4.", version: 1, versions: 2 },
];

/** Frames the test paints by hand: `paint()` runs what waits for the next frame; the clock never moves by itself. */
function manualFrames(): Frames & { paint(): void; waiting(): number } {
  let queue = new Map<number, () => void>();
  let next = 0;
  return {
    now: () => 1_000,
    request: (callback) => (queue.set(++next, callback), next),
    cancel: (id) => void queue.delete(id),
    paint() {
      const due = queue;
      queue = new Map();
      due.forEach((callback) => callback());
    },
    waiting: () => queue.size,
  };
}

const opened: Array<{ setup: NodeStore; stop: () => void }> = [];
afterEach(() => opened.splice(0).forEach(({ setup, stop }) => (stop(), setup.store.dispose())));

/** A started chat over `client` (a saved chat when `session_id` is given), once its transcript has loaded. */
async function openChat(client: FakeClient, session_id?: string, frames?: Frames): Promise<Chat & NodeStore> {
  const setup = await nodeStore(client, session_id ? `#/s/${session_id}` : "#/new");
  const chat = createChat(setup.store, session_id, frames);
  opened.push({ setup, stop: chat.start() });
  await vi.waitFor(() => expect(chat.view.value.loading).toBe(false));
  return Object.assign(chat, setup);
}

/** A server holding `session`, recording the calls the chat makes. */
function server(session: Session, extra: Record<string, (...args: never[]) => unknown> = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const client = fakeClient({
    getSession: async () => session,
    loadMessages: async () => ({
      messages: session.messages,
      cursor_event_id: "0".repeat(20),
      events: [],
      dispose: () => undefined,
    }),
    regenerate: async (id: string, options: unknown) => (calls.push(["regenerate", id, options]), { request_id: "r" }),
    switchVersion: async (id: string, index: number, version: number) => (
      calls.push(["switchVersion", id, index, version]),
      { ...session, title: "switched", updated_at: "2026-11-27T09:00:00.000Z" }
    ),
    resendMessage: async (id: string, index: number, content: string) => (
      calls.push(["resendMessage", id, index, content]),
      { request_id: "r" }
    ),
    deleteMessages: async (id: string, indices: number[]) => (calls.push(["deleteMessages", id, indices]), session),
    ...extra,
  });
  return { client, calls };
}

describe("the chat controller", () => {
  it("sends a new chat's first message: creates the session, sends, and opens it (CH1)", async () => {
    const sent: unknown[] = [];
    const client = fakeClient({
      createSession: async () => sessionOf("s9"),
      send: async (id: string, body: unknown) => (sent.push([id, body]), { request_id: "r1" }),
    });
    const chat = await openChat(client);
    chat.draft.setText("hello there");
    expect(await chat.draft.submit()).toBe(true);
    expect(sent).toEqual([["s9", expect.objectContaining({ content: "hello there" })]]);
    expect(chat.store.router.route.value).toEqual({ name: "chat", session_id: "s9" });
    expect(chat.store.sessions.list.value.map((s) => s.id)).toEqual(["s9"]);
    expect(chat.draft.text.value).toBe("");
  });

  it("keeps the text and the client_request_id of a failed send, so sending again starts nothing twice (CH2)", async () => {
    const ids: string[] = [];
    let fail = true;
    const client = fakeClient({
      send: async (_id: string, body: { client_request_id: string }) => {
        ids.push(body.client_request_id);
        if (fail) throw new NetworkError("fetch failed");
        return { request_id: "r1" };
      },
    });
    const chat = await openChat(client, "s1");
    chat.draft.setText("again");
    expect(await chat.draft.submit()).toBe(false);
    expect(chat.draft.problem.value).toMatch(/^Not sent: /);
    expect(chat.draft.text.value).toBe("again");
    fail = false;
    expect(await chat.draft.submit()).toBe(true);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  it("offline, a message waits in the outbox instead of failing; a refusal made while live stays (CH3, OB9)", async () => {
    const client = fakeClient({ send: () => Promise.reject(new NetworkError("fetch failed")) });
    const chat = await openChat(client, "s1");
    client.status.set({ state: "offline" });
    expect(chat.store.connection.badge.value).toBe("offline");
    chat.draft.setText("are you there?");
    expect(await chat.draft.submit()).toBe(true);
    expect(chat.draft.problem.value).toBeUndefined();
    expect(chat.draft.text.value).toBe("");
    expect(chat.store.outbox.items.value.map((item) => [item.text, item.session_id])).toEqual([
      ["are you there?", "s1"],
    ]);
    client.status.set({ state: "live" });
    // A refusal made while live (an image link this agent does not take) is not about the server: it stays.
    chat.draft.addUrl("not a link");
    const refusal = chat.draft.problem.value;
    expect(refusal).toBeDefined();
    client.status.set({ state: "offline" });
    client.status.set({ state: "live" });
    expect(chat.draft.problem.value).toBe(refusal);
  });

  it("stops the reply being written, remembers it stopped it, and says a failed stop (CH4)", async () => {
    let refuse = false;
    const client = liveChat({
      cancel: () => (refuse ? Promise.reject(new Error("refused")) : Promise.resolve()),
    });
    const chat = await openChat(client, "s1");
    chat.cancel();
    expect(chat.stoppedHere.value.size).toBe(0);
    client.emit("request_started", { request_id: "r1", stream: true });
    await vi.waitFor(() => expect(chat.streaming.value).toBe(true));
    chat.cancel();
    expect([...chat.stoppedHere.value]).toEqual(["r1"]);
    refuse = true;
    chat.cancel();
    await vi.waitFor(() => expect(chat.problem.value).toBe("Could not stop the reply: refused"));
    // While a reply streams, the draft does not send.
    chat.draft.setText("wait");
    expect(await chat.draft.submit()).toBe(false);
  });

  it("retries a failed reply through regenerate and says a failed retry (CH5)", async () => {
    let fail = false;
    const { client, calls } = server(sessionOf("s1", { messages: TURN }), {
      regenerate: async (id: string, options: unknown) => {
        calls.push(["regenerate", id, options]);
        if (fail) throw new Error("backend down");
        return { request_id: "r" };
      },
    });
    const chat = await openChat(client, "s1");
    chat.retry();
    await vi.waitFor(() => expect(calls).toEqual([["regenerate", "s1", undefined]]));
    fail = true;
    chat.retry();
    await vi.waitFor(() => expect(chat.problem.value).toBe("Retry failed: backend down"));
  });

  it("regenerates (with another model), switches versions, resends an edit and deletes (CH6)", async () => {
    const { client, calls } = server(sessionOf("s1", { messages: TURN }));
    const chat = await openChat(client, "s1");
    expect(chat.editable.value).toBe(true);
    await chat.regenerate();
    await chat.regenerate("other-model");
    await chat.switchVersion(0, 2);
    expect(chat.session.value?.title).toBe("switched");
    chat.startEditing(0);
    await chat.edit(0, "what is 3+3?");
    expect(chat.editing.value).toBeUndefined();
    await chat.remove(1);
    expect(calls).toEqual([
      ["regenerate", "s1", {}],
      ["regenerate", "s1", { model: "other-model" }],
      ["switchVersion", "s1", 0, 2],
      ["resendMessage", "s1", 0, "what is 3+3?"],
      ["deleteMessages", "s1", [1]],
    ]);
  });

  it("opens the last user message for editing (Up in the empty composer); a new chat has none (CH7)", async () => {
    const messages: Message[] = [...TURN, { role: "user", content: "and 3+3?" }, { role: "assistant", content: "6" }];
    const chat = await openChat(server(sessionOf("s1", { messages })).client, "s1");
    expect(chat.editLast()).toBe(true);
    expect(chat.editing.value).toBe(2);
    chat.stopEditing();
    expect(chat.editing.value).toBeUndefined();
    const fresh = await openChat(fakeClient());
    expect(fresh.editLast()).toBe(false);
    expect(fresh.editable.value).toBe(false);
  });

  it("follows the bottom until the reader scrolls up, and again once they are back (CH8)", async () => {
    const chat = await openChat(fakeClient(), "s1");
    expect(chat.atBottom.value).toBe(true);
    chat.noteScroll(400);
    expect(chat.atBottom.value).toBe(false);
    chat.noteScroll(10);
    expect(chat.atBottom.value).toBe(true);
    chat.leaveBottom();
    expect(chat.atBottom.value).toBe(false);
  });

  it("renders a burst of streamed events once per frame, and a quiet one at once (CH9)", async () => {
    const client = liveChat();
    const frames = manualFrames();
    const chat = await openChat(client, "s1", frames);
    // The frame that paints the loaded chat (its head read and notifications watch follow it, CH12).
    frames.paint();
    const renders: string[] = [];
    const stop = chat.view.subscribe((view) => renders.push(view.transcript.live?.content ?? "-"));
    const partial = (content: string) =>
      client.emit("partial", { request_id: "r1", message: { role: "assistant", content } } as Partial<AnyEvent>);
    client.emit("request_started", { request_id: "r1", stream: true });
    partial("a");
    partial("b");
    partial("c");
    await Promise.resolve();
    // The first event after the snapshot rendered on the next microtask; the rest of the burst waits for a frame.
    expect(frames.waiting()).toBe(1);
    frames.paint();
    expect(renders.at(-1)).toBe("abc");
    expect(renders.length).toBeLessThanOrEqual(3);
    stop();
  });

  it("reads the chat's head (its settings) and watches its notifications only once its messages have answered and that frame is painted (CH12)", async () => {
    const asked: string[] = [];
    let answer: (loaded: unknown) => void = () => undefined;
    const client = fakeClient({
      loadMessages: () => (asked.push("messages"), new Promise((resolve) => (answer = resolve))),
      getSessionPage: async (id: string) => (
        asked.push("head"),
        { ...sessionOf(id, { messages: TURN }), messages_total: 2, messages_start: 0 }
      ),
    });
    (client.client.notifications as { watchSession: unknown }).watchSession = async () => (
      asked.push("notifications"),
      () => undefined
    );
    const setup = await nodeStore(client, "#/s/s1");
    const frames = manualFrames();
    const chat = createChat(setup.store, "s1", frames);
    opened.push({ setup, stop: chat.start() });
    await Promise.resolve();
    frames.paint();
    // Only the messages are asked for while the chat opens, however many frames pass before they answer.
    expect(asked).toEqual(["messages"]);
    answer({ messages: TURN, cursor_event_id: "0".repeat(20), events: [], dispose: () => undefined });
    await vi.waitFor(() => expect(chat.view.value.loading).toBe(false));
    expect(asked).toEqual(["messages"]);
    // The frame that paints the messages: the head and the notifications follow it.
    frames.paint();
    await vi.waitFor(() => expect([...asked].sort()).toEqual(["head", "messages", "notifications"]));
    expect(asked[0]).toBe("messages");
    await vi.waitFor(() => expect(setup.store.sessions.list.value.some((item) => item.id === "s1")).toBe(true));
  });

  it("says why sending is off: a chat that could not be loaded shows this device's copy read-only (CH10)", async () => {
    const client = fakeClient({ loadMessages: () => Promise.reject(new NetworkError("fetch failed")) });
    client.status.set({ state: "offline" });
    const setup = await nodeStore(client, "#/s/s1");
    await setup.env.offline.writeMessages("s1", [{ role: "user", content: "kept here" }]);
    const kept = createChat(setup.store, "s1");
    opened.push({ setup, stop: kept.start() });
    await vi.waitFor(() => expect(kept.view.value.cached).toHaveLength(1));
    // Offline with this device's copy, writing goes on into the outbox (OB9).
    expect(kept.readOnly.value).toBeUndefined();
    expect(kept.offlineNote.value).toMatch(
      /^You are offline: these are the last loaded messages\. What you write waits/,
    );
    expect(kept.unavailable.value).toBe(false);
    kept.draft.setText("hello?");
    expect(await kept.draft.submit()).toBe(true);
    expect(setup.store.outbox.items.value.map((item) => item.text)).toEqual(["hello?"]);
    const never = await openChat(client, "s2");
    await vi.waitFor(() => expect(never.unavailable.value).toBe(true));
  });

  it("lists the chat's pending approvals; one answered here leaves at once, one put off stays; the server's word wins (CH11)", async () => {
    const approval = (id: string) =>
      ({
        record: {
          id,
          kind: "interaction",
          status: "pending_response",
          session_id: "s1",
          display: { approval: { server: "files", tool: "write_file", name: "mcp__files__write_file" } },
        },
        decision: { presented: true, presentation: "modal" },
      }) as unknown as PresentedNotification;
    const other = { record: { id: "info", kind: "notification", display: {} } } as unknown as PresentedNotification;
    const records = new Value<readonly PresentedNotification[]>([approval("n1"), other, approval("n2")]);
    const client = fakeClient();
    (client.client.notifications as unknown as { session: () => typeof records }).session = () => records;
    const chat = await openChat(client, "s1");
    const ids = () => chat.approvals.pending.value.map((item) => item.record.id);
    expect(ids()).toEqual(["n1", "n2"]);
    chat.approvals.answered("n1");
    expect(ids()).toEqual(["n2"]);
    chat.approvals.putOff("n2");
    expect([...chat.approvals.later.value]).toEqual(["n2"]);
    expect(ids()).toEqual(["n2"]);
    // Answered on another device: the library's view drops it, and so does the chat.
    records.set([other]);
    expect(ids()).toEqual([]);
  });
});
