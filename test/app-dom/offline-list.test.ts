// @vitest-environment happy-dom
// The chat list when nothing answers (docs/app.md L8): with neither the server nor the bridge reachable the list's
// first page may wait up to the relay's push timeout (35 s); past UNREACHABLE_AFTER_MS the list says it shows the
// chats loaded last, and a page that answers later takes that back. Time is the test's: only setTimeout is faked and
// moved on, nothing is waited for.
import { act, screen, waitFor } from "@testing-library/preact";
import { h } from "preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionSummary } from "../../client/index.ts";
import { SessionList } from "../../app/src/screens/session-list.tsx";
import { UNREACHABLE_AFTER_MS } from "../../app/src/state/chat-feed.ts";
import { fakeClient, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

const summary = (id: string, title: string): SessionSummary => ({
  id,
  title,
  agent_id: "default",
  model: null,
  created_at: "2026-11-27T07:00:00Z",
  updated_at: "2026-11-27T07:00:00Z",
  message_count: 1,
});
const NOTE = "Offline: showing the chats loaded last time.";

useScreens({ sized: true });
afterEach(() => void vi.useRealTimers());

describe("chat list, nothing answering", () => {
  it("says it shows the chats loaded last once the first page is UNREACHABLE_AFTER_MS late, and not after a late answer (L8)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let answer: (sessions: SessionSummary[]) => void = () => undefined;
    const client = fakeClient({ listSessions: () => new Promise<SessionSummary[]>((resolve) => (answer = resolve)) });
    const setup = await testStore({ client });
    // The walk starts in a task after the client's start resolved (docs/app.md SC4): a timer of the test's.
    await act(() => void vi.advanceTimersByTime(0));
    await setup.env.offline.writeSessions([summary("s1", "Seed order for spring")]);
    await setup.store.sessions.restore();
    show(setup, () => h(SessionList, { activeId: undefined }));
    await screen.findByText("Seed order for spring");
    await act(() => void vi.advanceTimersByTime(UNREACHABLE_AFTER_MS - 1));
    expect(screen.queryByText(NOTE)).toBeNull();
    await act(() => void vi.advanceTimersByTime(1));
    await screen.findByText(NOTE);

    await act(() => answer([summary("s1", "Seed order for spring"), summary("s2", "Greenhouse heater")]));
    await waitFor(() => expect(screen.queryByText(NOTE)).toBeNull());
    expect(screen.getByText("Greenhouse heater")).toBeTruthy();
  });

  it("says nothing of the kind when the first page answers in time", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const setup = await testStore({ client: fakeClient({ listSessions: async () => [summary("s1", "Seed order")] }) });
    await act(() => void vi.advanceTimersByTime(0)); // the walk's task (SC4)
    show(setup, () => h(SessionList, { activeId: undefined }));
    await screen.findByText("Seed order");
    await act(() => void vi.advanceTimersByTime(UNREACHABLE_AFTER_MS * 2));
    expect(screen.queryByText(NOTE)).toBeNull();
  });
});
