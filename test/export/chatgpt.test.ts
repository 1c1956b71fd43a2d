// Import of ChatGPT's conversations.json (docs/export.md "ChatGPT"): the branch on screen becomes the chat, the other
// branches that turn's versions; plumbing (system, tool, hidden) is left out; a conversation imports once.
import { afterEach, beforeEach, expect, it } from "vitest";
import type { TestServer } from "../support/server.ts";
import { listeningServer, type Api } from "../search/support.ts";
import { upload } from "./support.ts";

let server: TestServer;
let api: Api;
beforeEach(async () => ({ server, api } = await listeningServer()));
afterEach(() => server.close());

/** Messages are made in the order the fixture lists them, a second apart. */
let made = 0;
const node = (
  id: string,
  parent: string | null,
  children: string[],
  role: string | null,
  parts: unknown[] = [],
  extra: Record<string, unknown> = {},
) => ({
  id,
  parent,
  children,
  message:
    role === null
      ? null
      : {
          id,
          author: { role },
          create_time: 1_700_000_000 + made++,
          content: { content_type: "text", parts },
          metadata: { model_slug: "gpt-4o" },
          ...extra,
        },
});

/** A conversation where the user edited their second question (branch b2 is on screen) and regenerated a reply. */
function conversation(id = "conv-1") {
  made = 0;
  const mapping = Object.fromEntries(
    [
      node("root", null, ["sys"], null),
      node("sys", "root", ["u1"], "system", [""], { metadata: { is_visually_hidden_from_conversation: true } }),
      node("u1", "sys", ["a1", "a1b"], "user", ["What is a monad?"]),
      node("a1", "u1", [], "assistant", ["A burrito."]),
      node("a1b", "u1", ["u2", "u2b"], "assistant", ["A monoid in the category of endofunctors."]),
      node("u2", "a1b", ["a2"], "user", ["Simpler please"]),
      node("a2", "u2", [], "assistant", ["It chains computations."]),
      node("u2b", "a1b", ["t", "a2b"], "user", [
        "Show code",
        { content_type: "image_asset_pointer", asset_pointer: "file-service://x" },
      ]),
      node("t", "u2b", [], "tool", ["browsing..."]),
      node("a2b", "u2b", [], "assistant", ["Here:"]),
    ].map((n) => [n.id, n]),
  );
  (mapping["a2b"]!.message as { content: unknown }).content = {
    content_type: "code",
    language: "haskell",
    text: "x >>= f",
  };
  return {
    title: "Monads",
    create_time: 1_700_000_000.5,
    update_time: 1_700_000_100,
    mapping,
    current_node: "a2b",
    conversation_id: id,
    id,
  };
}

it("G1 the shown branch becomes the chat; other branches are that turn's versions; plumbing is left out", async () => {
  const res = await upload(api.url, [JSON.stringify([conversation()])]);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ imported: 1, skipped: 0, chats: [{ source_id: "chatgpt:conv-1", skipped: false }] });
  const session = (await api.call("GET", `/sessions/${res.json.chats[0].session_id}`)).json.session;
  expect(session).toMatchObject({
    title: "Monads",
    created_at: "2023-11-14T22:13:20.500Z",
    metadata: { imported_from: { format: "chatgpt", conversation_id: "conv-1" } },
  });
  expect(session.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
    ["user", "What is a monad?"],
    ["assistant", "A monoid in the category of endofunctors."],
    ["user", "Show code"],
    ["assistant", "```\nx >>= f\n```"],
  ]);
  // The sessions' own versions (docs/sessions.md "Versions"), numbered in the order they were made: the first turn's
  // earlier reply ("A burrito.") is version 1 after the same question; the second turn's question before its edit is
  // version 1 with the reply it got. The shown branches are version 2 of 2, their replies stamped alike.
  const bare = (m: { role: string; content: string }) => ({ role: m.role, content: m.content });
  expect(session.messages.map((m: { version?: number; versions?: number }) => [m.version, m.versions])).toEqual([
    [2, 2],
    [2, 2],
    [2, 2],
    [2, 2],
  ]);
  expect(
    session.messages[0].other_versions.map((v: any) => ({ version: v.version, messages: v.messages.map(bare) })),
  ).toEqual([{ version: 1, messages: [bare(session.messages[0]), { role: "assistant", content: "A burrito." }] }]);
  expect(
    session.messages[2].other_versions.map((v: any) => ({ version: v.version, messages: v.messages.map(bare) })),
  ).toEqual([
    {
      version: 1,
      messages: [
        { role: "user", content: "Simpler please" },
        { role: "assistant", content: "It chains computations." },
      ],
    },
  ]);
  expect(session.messages[1]).not.toHaveProperty("other_versions");
  expect(session.messages[2].metadata.chatgpt).toEqual({
    message_id: "u2b",
    created_at: "2023-11-14T22:13:26.000Z",
    model: "gpt-4o",
    omitted_parts: 1,
  });
  // Found by search like any chat.
  expect((await api.call("GET", "/search?q=endofunctor")).json.results).toHaveLength(1);
});

it("G2 a conversation imports once (by its id, else by its content); without current_node the newest branch shows", async () => {
  const { current_node: _c, conversation_id: _i, id: _d, ...anonymous } = conversation();
  const file = JSON.stringify([conversation("conv-9"), anonymous]);
  expect((await upload(api.url, [file])).json).toMatchObject({ imported: 2, skipped: 0 });
  expect((await upload(api.url, [file])).json).toMatchObject({ imported: 0, skipped: 2 });
  const sessions = (await api.call("GET", "/sessions")).json.sessions;
  expect(sessions).toHaveLength(2);
  const newest = (await api.call("GET", "/export")).json.find(
    (r: { source_id: string }) => r.source_id.startsWith("chatgpt:") && r.source_id !== "chatgpt:conv-9",
  );
  expect(newest.source_id).toMatch(/^chatgpt:[0-9a-f]{64}$/);
  expect(newest.session.messages.at(-1).content).toBe("```\nx >>= f\n```");
});

it("G3 a damaged tree (a parent loop, a current_node outside the mapping) imports what it can, never hangs", async () => {
  const looped = conversation("conv-loop");
  looped.mapping["u1"]!.parent = "a1b";
  const lost = { ...conversation("conv-lost"), current_node: "nowhere" };
  const res = await upload(api.url, [JSON.stringify([looped, lost])]);
  expect(res.json).toMatchObject({ imported: 2 });
});

it("G4 an older branch on screen is version 1; the newer one is hidden as version 2, down its newest children", async () => {
  const res = await upload(api.url, [JSON.stringify([{ ...conversation("conv-old"), current_node: "a1" }])]);
  const session = (await api.call("GET", `/sessions/${res.json.chats[0].session_id}`)).json.session;
  expect(
    session.messages.map((m: { content: string; version: number; versions: number }) => [
      m.content,
      m.version,
      m.versions,
    ]),
  ).toEqual([
    ["What is a monad?", 1, 2],
    ["A burrito.", 1, 2],
  ]);
  const [hidden] = session.messages[0].other_versions;
  expect(hidden.version).toBe(2);
  expect(hidden.messages.map((m: { content: string }) => m.content)).toEqual([
    "What is a monad?",
    "A monoid in the category of endofunctors.",
    "Show code",
    "```\nx >>= f\n```",
  ]);
});
