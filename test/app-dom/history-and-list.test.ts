// @vitest-environment happy-dom
// The notification history and the chat list without a browser (docs/app.md H1, L1-L2): a history that cannot be
// loaded says why; the list says it shows the cached chats when offline, filters by title, and keeps the newest copy
// of a chat (a late answer never puts "New chat" back over a title).
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { h } from "preact";
import { describe, expect, it } from "vitest";
import { NetworkError, type Session } from "../../client/index.ts";
import { HistoryScreen } from "../../app/src/screens/history-screen.tsx";
import { SessionList } from "../../app/src/screens/session-list.tsx";
import { fakeClient, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";
import { summary } from "./support/summaries.ts";

const session = (id: string, messages: Session["messages"], updated_at: string): Session =>
  ({ id, agent_id: "default", version: 1, created_at: updated_at, updated_at, messages, metadata: {} }) as Session;

useScreens({ sized: true }); // the chat list is virtualized: its rows render in a scroller with a size

describe("notification history", () => {
  it("says why the history could not be loaded (H1)", async () => {
    const client = fakeClient();
    (client.client.notifications as unknown as { history: () => Promise<never> }).history = () =>
      Promise.reject(new NetworkError("fetch failed"));
    show(await testStore({ client }), () => h(HistoryScreen, {}));
    expect((await screen.findByRole("alert")).textContent).toContain("The history could not be loaded");
    expect(screen.queryByText("Loading…")).toBeNull();
  });
});

describe("chat list", () => {
  it("shows the cached chats with a note when the server cannot be reached, and filters them by title (L1)", async () => {
    const client = fakeClient({ listSessions: () => Promise.reject(new NetworkError("fetch failed")) });
    const setup = await testStore({ client });
    await setup.env.offline.writeSessions([
      summary("s1", "Plan a weekend in Lisbon", "2026-11-26T10:00:00Z"),
      summary("s2", "Retry helper", "2026-11-27T07:00:00Z"),
    ]);
    await setup.store.sessions.restore();
    show(setup, () => h(SessionList, { activeId: undefined }));
    await screen.findByText("Offline: showing the chats loaded last time.");
    expect(screen.getAllByRole("link").map((link) => link.textContent)).toEqual([
      "New chat",
      expect.stringContaining("Retry helper"),
      expect.stringContaining("Plan a weekend"),
    ]);
    fireEvent.input(screen.getByRole("searchbox", { name: "Filter chats by title" }), { target: { value: "lisbon" } });
    await waitFor(() => expect(screen.queryByText("Retry helper")).toBeNull());
    expect(screen.getByText("Plan a weekend in Lisbon")).toBeTruthy();
  });

  it("keeps a new chat's title when an older copy of it arrives late, and drops a deleted chat (L2)", async () => {
    const setup = await testStore({ client: fakeClient() });
    show(setup, () => h(SessionList, { activeId: undefined }));
    const titled = session("s9", [{ role: "user", content: "What is the tallest tree?" }], "2026-11-27T07:00:02Z");
    setup.store.sessions.upsert(titled);
    setup.store.sessions.upsert(session("s9", [], "2026-11-27T07:00:01Z"));
    expect(await screen.findByText("What is the tallest tree?")).toBeTruthy();
    expect(screen.queryByText("New chat", { selector: ".session-title" })).toBeNull();
    setup.store.sessions.apply({ event_id: "0".repeat(19) + "9", type: "session_deleted", session_id: "s9" });
    await waitFor(() => expect(screen.queryByText("What is the tallest tree?")).toBeNull());
  });

  it("marks a pinned chat with a pin, named Pinned, and no other (L7)", async () => {
    const setup = await testStore({ client: fakeClient() });
    setup.store.sessions.replace([
      { ...summary("p1", "Pinned plans", "2026-11-26T10:00:00Z"), pinned: true },
      summary("u1", "Loose ends", "2026-11-27T07:00:00Z"),
    ]);
    show(setup, () => h(SessionList, { activeId: undefined }));
    const [first, second] = screen.getAllByRole("link").slice(1);
    expect(first!.textContent).toContain("Pinned plans");
    expect(within(first!).getByRole("img", { name: "Pinned" })).toBeTruthy();
    expect(within(second!).queryByRole("img", { name: "Pinned" })).toBeNull();
  });
});
