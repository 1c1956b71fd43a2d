// The outbox controller without a page (app/src/offline/outbox.ts, docs/app.md "Outbox" OB1-OB5, OB14, OB17): order,
// one message per chat at a time, chats side by side, ids kept across retries, edit and cancel of a waiting message,
// chats that are gone, a reset's runs let go.
import { describe, expect, it } from "vitest";
import { createOutbox, type OutboxSender } from "../../app/src/offline/outbox.ts";
import { memoryOutboxStore, type Waiting } from "../../app/src/offline/outbox-store.ts";

class Unreachable extends Error {}
class Gone extends Error {}
class Refused extends Error {}

/** A server stand-in: records each send, answers replies when the test says, refuses while `down`. */
function fakeServer() {
  const sent: Array<{ session_id: string; text: string; id: string; client_session_id?: string }> = [];
  const requests = new Map<string, string>();
  const replies = new Map<string, () => void>();
  /** Requests a send repeated: their replies are taken as done (the stand-in for the sender's look at the log). */
  const repeated = new Set<string>();
  const created = new Map<string, string>();
  const state = { down: false, gone: new Set<string>(), refused: new Set<string>() };
  const sender: OutboxSender = {
    async send(item: Waiting) {
      if (state.down) throw new Unreachable("unreachable");
      let session_id = item.session_id;
      if (!session_id) {
        session_id = created.get(item.client_session_id!) ?? `s-${created.size + 1}`;
        created.set(item.client_session_id!, session_id);
      }
      if (state.gone.has(session_id)) throw new Gone(session_id);
      if (state.refused.has(item.text)) throw new Refused(`refused: ${item.text}`);
      const known = requests.get(item.id);
      if (known) return (repeated.add(known), { session_id, request_id: known });
      const request_id = `r-${requests.size + 1}`;
      requests.set(item.id, request_id);
      sent.push({ session_id, text: item.text, id: item.id, ...pick(item) });
      return { session_id, request_id };
    },
    awaitReply: (_session, request_id) =>
      repeated.has(request_id) ? Promise.resolve() : new Promise<void>((resolve) => replies.set(request_id, resolve)),
    judge: (error) => (error instanceof Gone ? "gone" : error instanceof Refused ? "refused" : "later"),
    describe: (error) => (error as Error).message,
    report: () => undefined,
  };
  const reply = async (request_id: string) => {
    for (let i = 0; i < 200 && !replies.has(request_id); i++) await Promise.resolve();
    replies.get(request_id)!();
    replies.delete(request_id);
  };
  return { sent, sender, state, reply, created, pending: () => [...replies.keys()] };
}
const pick = (item: Waiting) => (item.client_session_id ? { client_session_id: item.client_session_id } : {});
/** Lets the outbox's promise chains run (microtasks only: no real time passes). */
const settle = async () => {
  for (let i = 0; i < 200; i++) await Promise.resolve();
};

describe("outbox", () => {
  it("sends each chat's messages in order, one at a time, each after the previous reply (OB1)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const server = fakeServer();
    await outbox.add({ id: "a1", session_id: "s-old", text: "first" });
    await outbox.add({ id: "n1", client_session_id: "cs-1", text: "new chat" });
    await outbox.add({ id: "a2", session_id: "s-old", text: "second" });
    const done = outbox.flush(server.sender);
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["first", "new chat"]);
    expect(server.sent[1]).toMatchObject({ session_id: "s-1", client_session_id: "cs-1" });
    await server.reply("r-1");
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["first", "new chat", "second"]);
    await server.reply("r-2");
    await server.reply("r-3");
    await done;
    expect(outbox.items.value).toEqual([]);
  });

  it("keeps what could not go across a restart and sends it with the same ids, once (OB2)", async () => {
    const store = memoryOutboxStore();
    const first = createOutbox(store);
    const server = fakeServer();
    await first.add({ id: "n1", client_session_id: "cs-1", text: "one" });
    await first.add({ id: "n2", client_session_id: "cs-1", text: "two" });
    server.state.down = true;
    await first.flush(server.sender);
    expect(first.items.value.map((item) => item.state)).toEqual(["waiting", "waiting"]);
    server.state.down = false;
    // Accepted, then the app closed before the reply: the reopened app repeats it with the same id.
    const closing = first.flush(server.sender);
    await settle();
    expect(server.sent).toHaveLength(1);
    void closing;

    const reopened = createOutbox(store);
    await reopened.load();
    expect(reopened.items.value.map((item) => [item.text, item.session_id, item.request_id])).toEqual([
      ["one", "s-1", "r-1"],
      ["two", "s-1", undefined],
    ]);
    const done = reopened.flush(server.sender);
    await settle();
    await server.reply("r-2");
    await done;
    expect(server.sent.map((item) => [item.text, item.session_id])).toEqual([
      ["one", "s-1"],
      ["two", "s-1"],
    ]);
    expect(server.created.size).toBe(1);
    expect(await store.list()).toEqual([]);
  });

  it("edits and cancels a waiting message, never one being sent (OB3)", async () => {
    const store = memoryOutboxStore();
    const outbox = createOutbox(store);
    const server = fakeServer();
    await outbox.add({ id: "a1", session_id: "s", text: "draft" });
    await outbox.add({ id: "a2", session_id: "s", text: "to cancel" });
    await outbox.add({ id: "a3", session_id: "s", text: "stays" });
    expect(await outbox.edit("a1", "edited")).toBe(true);
    expect(await outbox.cancel("a2")).toBe(true);
    expect((await store.list()).map((item) => item.text).sort()).toEqual(["edited", "stays"]);
    const done = outbox.flush(server.sender);
    await settle();
    expect(outbox.items.value[0]!.state).toBe("sending");
    expect(await outbox.edit("a1", "too late")).toBe(false);
    expect(await outbox.cancel("a1")).toBe(false);
    await server.reply("r-1");
    await server.reply("r-2");
    await done;
    expect(server.sent.map((item) => item.text)).toEqual(["edited", "stays"]);
  });

  it("drops a chat's messages when the chat is gone, and only that chat's (OB4)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const server = fakeServer();
    await outbox.add({ id: "a1", session_id: "s-a", text: "a" });
    await outbox.add({ id: "b1", session_id: "s-b", text: "b1" });
    await outbox.add({ id: "b2", session_id: "s-b", text: "b2" });
    await outbox.add({ id: "c1", session_id: "s-c", text: "c" });
    await outbox.dropChat("s-a");
    server.state.gone.add("s-b");
    const done = outbox.flush(server.sender);
    await server.reply("r-1");
    await done;
    expect(server.sent.map((item) => item.text)).toEqual(["c"]);
    expect(outbox.items.value).toEqual([]);
  });

  it("a flush while a chat waits for its reply starts the other chats at once, and that chat's new message goes after the reply (OB5)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const server = fakeServer();
    await outbox.add({ id: "a1", session_id: "s", text: "one" });
    const first = outbox.flush(server.sender);
    await settle();
    await outbox.add({ id: "b1", session_id: "t", text: "other chat" });
    await outbox.add({ id: "a2", session_id: "s", text: "two" });
    const second = outbox.flush(server.sender);
    await settle();
    // The other chat went while "one" still waits for its reply; "two" waits for it.
    expect(server.sent.map((item) => item.text)).toEqual(["one", "other chat"]);
    expect(server.pending().sort()).toEqual(["r-1", "r-2"]);
    await server.reply("r-1");
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["one", "other chat", "two"]);
    await server.reply("r-2");
    await server.reply("r-3");
    await Promise.all([first, second]);
    expect(outbox.items.value).toEqual([]);
  });

  it("holds a message refused as it is, with the server's reason, and the chat's later ones behind it, until it is edited or cancelled (OB14)", async () => {
    const store = memoryOutboxStore();
    const outbox = createOutbox(store);
    const server = fakeServer();
    server.state.refused.add("far too long");
    await outbox.add({ id: "a1", session_id: "s", text: "far too long" });
    await outbox.add({ id: "a2", session_id: "s", text: "after it" });
    await outbox.add({ id: "b1", session_id: "t", text: "another chat" });
    const first = outbox.flush(server.sender);
    await server.reply("r-1");
    await first;
    expect(server.sent.map((item) => item.text)).toEqual(["another chat"]);
    expect(outbox.items.value.map((item) => [item.id, item.state, item.problem])).toEqual([
      ["a1", "refused", "refused: far too long"],
      ["a2", "waiting", undefined],
    ]);
    // Flushed again as it is, nothing goes: the chat's later message stays behind it.
    await outbox.flush(server.sender);
    expect(server.sent.map((item) => item.text)).toEqual(["another chat"]);
    // What is kept is the message, not its refusal.
    expect((await store.list()).map((item) => Object.keys(item).includes("problem"))).toEqual([false, false]);

    // Edited, it goes at once (no flush asked for): the edit freed its chat.
    expect(await outbox.edit("a1", "shorter")).toBe(true);
    expect(outbox.items.value[0]!.problem).toBeUndefined();
    await server.reply("r-2");
    await server.reply("r-3");
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["another chat", "shorter", "after it"]);
    expect(outbox.items.value).toEqual([]);
  });

  it("cancels a refused message, and the chat's next one goes (OB14)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const server = fakeServer();
    server.state.refused.add("refused");
    await outbox.add({ id: "a1", session_id: "s", text: "refused" });
    await outbox.add({ id: "a2", session_id: "s", text: "next" });
    await outbox.flush(server.sender);
    // Cancelled, the chat's next message goes at once (no flush asked for).
    expect(await outbox.cancel("a1")).toBe(true);
    await server.reply("r-1");
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["next"]);
    expect(outbox.items.value).toEqual([]);
  });
  it("keeps a chat started offline one queue once it is created: a message written in it later goes after the earlier ones (OB1)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const server = fakeServer();
    await outbox.add({ id: "n1", client_session_id: "cs-1", text: "one" });
    await outbox.add({ id: "n2", client_session_id: "cs-1", text: "two" });
    const first = outbox.flush(server.sender);
    await settle();
    // "one" created the chat; "two" cannot go (the network dropped again) and waits, bound to the new session.
    server.state.down = true;
    await server.reply("r-1");
    await first;
    expect(outbox.items.value.map((item) => [item.text, item.session_id, item.state])).toEqual([
      ["two", "s-1", "waiting"],
    ]);
    // Written on the chat's own address now, where the chat is its session.
    await outbox.add({ id: "n3", session_id: "s-1", text: "three" });
    server.state.down = false;
    const second = outbox.flush(server.sender);
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["one", "two"]);
    await server.reply("r-2");
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["one", "two", "three"]);
    await server.reply("r-3");
    await second;
    expect(outbox.items.value).toEqual([]);
  });

  it("keeps an edit and a cancel made while a new chat's messages are bound to its session (OB3)", async () => {
    const store = memoryOutboxStore();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Each write waits until the test lets it: the binding's writes are slow, as IndexedDB's can be.
    const slow = { ...store, put: async (item: Waiting) => (await held, store.put(item)) };
    const outbox = createOutbox(slow);
    const server = fakeServer();
    const adding = ["one", "two", "three"].map((text, i) =>
      outbox.add({ id: `n${i + 1}`, client_session_id: "cs-1", text }),
    );
    release();
    await Promise.all(adding);
    let holdBinding = () => undefined as void;
    const binding = new Promise<void>((resolve) => (holdBinding = resolve));
    slow.put = async (item: Waiting) => (await binding, store.put(item));
    const done = outbox.flush(server.sender);
    await settle();
    expect(server.sent.map((item) => item.text)).toEqual(["one"]);
    // "one" was accepted; its chat's binding is writing. Meanwhile "two" is edited and "three" cancelled.
    expect(await Promise.race([outbox.edit("n2", "two, edited"), settle().then(() => "pending")])).toBe("pending");
    expect(await outbox.cancel("n3")).toBe(true);
    holdBinding();
    await settle();
    expect(outbox.items.value.map((item) => [item.id, item.text, item.session_id])).toEqual([
      ["n1", "one", "s-1"],
      ["n2", "two, edited", "s-1"],
    ]);
    expect((await store.list()).map((item) => [item.id, item.text]).sort()).toEqual([
      ["n1", "one"],
      ["n2", "two, edited"],
    ]);
    await server.reply("r-1");
    await server.reply("r-2");
    await done;
    expect(server.sent.map((item) => item.text)).toEqual(["one", "two, edited"]);
  });

  it("after a reset (unpaired), a chat whose reply was awaited is started again by the next flush (OB17)", async () => {
    const outbox = createOutbox(memoryOutboxStore());
    const before = fakeServer();
    await outbox.add({ id: "a1", session_id: "s", text: "before the unpair" });
    void outbox.flush(before.sender);
    await settle();
    expect(before.pending()).toEqual(["r-1"]);
    // Unpaired while the reply was awaited (the old sender never answers again), then paired again.
    outbox.reset();
    const after = fakeServer();
    await outbox.add({ id: "a2", session_id: "s", text: "after pairing again" });
    const done = outbox.flush(after.sender);
    await settle();
    expect(after.sent.map((item) => item.text)).toEqual(["after pairing again"]);
    await after.reply("r-1");
    await done;
    expect(outbox.items.value).toEqual([]);
  });
});
