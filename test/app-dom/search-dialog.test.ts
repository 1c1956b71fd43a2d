// @vitest-environment happy-dom
// "Search chats" without a browser (docs/app.md "Search", S1-S5): the button and Ctrl/Cmd+K open a search box of
// that name; the empty, no-result, error and offline states each say what to do; results show the title and the
// snippet with <mark> at the highlight offsets (a snippet's "<b>" stays text); opening one opens the chat at that
// message, highlighted.
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { NetworkError, ResponseError } from "../../client/index.ts";
import { snippetPieces } from "../../app/src/search/search-api.ts";
import { fakeClient, testStore, type TestStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

type Answer = (query: Record<string, string>) => Promise<unknown>;

async function appWith(
  answer: Answer,
  status: "live" | "offline" = "live",
): Promise<{ setup: TestStore; asked: Array<Record<string, string>> }> {
  const asked: Array<Record<string, string>> = [];
  const messages = Array.from({ length: 40 }, (_, index) => ({
    role: index % 2 ? "assistant" : "user",
    content: `message number ${index}`,
  }));
  const client = fakeClient({
    listSessions: async () => [
      {
        id: "s1",
        agent_id: "default",
        title: "Fig care",
        created_at: "2026-11-27T07:00:00Z",
        updated_at: "2026-11-27T07:00:00Z",
        message_count: 40,
      },
    ],
    loadMessages: () =>
      Promise.resolve({ messages, cursor_event_id: "0".repeat(20), events: [], dispose: () => undefined }),
    getSession: () => new Promise(() => undefined),
    // The library's typed GET /search (ServerApi.search); the answer's `results` are what it resolves with.
    search: async (q: never, options: never) => {
      const query = { q: q as string, limit: String((options as { limit?: number }).limit) };
      asked.push({ path: "/search", ...query });
      return ((await answer(query)) as { results: unknown[] }).results;
    },
  });
  client.status.set({ state: status } as never);
  const setup = await testStore({ client, hash: "#/" });
  show(setup);
  return { setup, asked };
}

/** The dialog is loaded on first open: wait for its box. */
const box = () => screen.findByRole("searchbox", { name: "Search chats" });
const type = async (text: string) => fireEvent.input(await box(), { target: { value: text } });

useScreens({ sized: true });

describe("Search chats", () => {
  it("opens from the button and from Ctrl/Cmd+K, and starts with the empty state (S1)", async () => {
    await appWith(async () => ({ results: [] }));
    fireEvent.click(await screen.findByRole("button", { name: "Search chats" }));
    expect(await box()).toBeTruthy();
    expect(screen.getByText(/Type words from a message or a title/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("searchbox", { name: "Search chats" })).toBeNull();
    fireEvent.keyDown(document, { key: "k", ctrlKey: true });
    expect(await screen.findByRole("searchbox", { name: "Search chats" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    fireEvent.keyDown(document, { key: "K", metaKey: true });
    expect(await screen.findByRole("searchbox", { name: "Search chats" })).toBeTruthy();
  });

  it("shows title and snippet with the matches marked, as text, and opens the chat at the message (S2)", async () => {
    const snippet = "<b>repot</b> the fig in spring, message number 31";
    const { asked } = await appWith(async () => ({
      results: [
        {
          session_id: "s1",
          title: "Fig care",
          message_index: 31,
          snippet,
          highlights: [
            [3, 8],
            [17, 20],
          ],
          archived: false,
        },
      ],
    }));
    fireEvent.click(await screen.findByRole("button", { name: "Search chats" }));
    await type("repot fig");
    // The index and MiniSearch load on this first offline search: on a loaded machine that takes a while.
    const results = await screen.findByRole("list", { name: "Search results" }, { timeout: 15_000 });
    expect(asked).toEqual([{ path: "/search", q: "repot fig", limit: "20" }]);
    const marks = [...results.querySelectorAll("mark")].map((mark) => mark.textContent);
    expect(marks).toEqual(["repot", "fig"]);
    // The server's snippet is text: "<b>" is shown, never parsed.
    expect(results.querySelector("b")).toBeNull();
    expect(within(results).getByRole("link").textContent).toContain("<b>repot</b>");
    fireEvent.click(within(results).getByRole("link"));
    await waitFor(() => expect(location.hash).toBe("#/s/s1"));
    expect(screen.queryByRole("searchbox", { name: "Search chats" })).toBeNull();
    const focused = await waitFor(() => {
      const row = document.querySelector(".message-row.search-focus");
      if (!row) throw new Error("no highlighted row yet");
      return row;
    });
    expect(focused.textContent).toContain("message number 31");
  });

  it("says when nothing matches (S3)", async () => {
    await appWith(async () => ({ results: [] }));
    fireEvent.click(await screen.findByRole("button", { name: "Search chats" }));
    await type("zebra");
    expect((await screen.findByText(/No chat matches/)).textContent).toBe("No chat matches “zebra”.");
  });

  it("says a failed search and tries again (S4)", async () => {
    let fail = true;
    await appWith(async () => {
      if (fail) throw new ResponseError(500, "internal", {}, "Internal error");
      return { results: [] };
    });
    fireEvent.click(await screen.findByRole("button", { name: "Search chats" }));
    await type("fig");
    expect((await screen.findByRole("alert")).textContent).toContain("Search failed: Internal error (500).");
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("No chat matches “fig”.")).toBeTruthy();
  });

  it("offline, searches the chats kept on this device and says the results are from it, asking the server nothing (S5)", async () => {
    const { asked, setup } = await appWith(() => Promise.reject(new NetworkError("fetch failed")), "offline");
    await setup.env.offline.writeMessages("s1", [{ role: "user", content: "How do I prune a fig tree?" }]);
    fireEvent.click(await screen.findByRole("button", { name: "Search chats" }));
    await type("prun");
    // The index and MiniSearch load on this first offline search: on a loaded machine that takes a while.
    const results = await screen.findByRole("list", { name: "Search results" }, { timeout: 15_000 });
    expect(within(results).getByRole("link").textContent).toContain("How do I prune a fig tree?");
    expect(screen.getByText(/these results are from this device/)).toBeTruthy();
    await type("apricot");
    expect(
      await screen.findByText("No chat kept on this device matches “apricot”.", undefined, { timeout: 15_000 }),
    ).toBeTruthy();
    expect(asked).toEqual([]);
  });

  it("cuts snippets at the offsets, clamping bad ones (S6)", () => {
    expect(
      snippetPieces("abcdef", [
        [4, 99],
        [1, 2],
        [1, 3],
        [5, 2],
      ]),
    ).toEqual([
      { text: "a", mark: false },
      { text: "b", mark: true },
      { text: "c", mark: true },
      { text: "d", mark: false },
      { text: "ef", mark: true },
    ]);
  });
});
