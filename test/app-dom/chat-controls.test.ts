// @vitest-environment happy-dom
// The chat's daily controls without a browser (docs/app.md "Chat" and "Chat list, pinned and archived", K1-K9): Delete chat behind "Delete
// chat?", Pin and Archive through PATCH, pinned first and an Archived view, versions "‹ 1 / 2 ›", Copy message,
// Regenerate on the last reply only, Edit message then resend, Delete message behind "Delete message?", per-chat
// request options saved on the session, and a failed model discovery said.
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { sessionSummaryOf, type Message, type Session } from "../../client/index.ts";
import { AGENT, fakeClient, sessionOf, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

useScreens({ sized: true });

const TURN: Message[] = [
  { role: "user", content: "what is 2+2?", version: 1, versions: 2 },
  { role: "assistant", content: "It is **4**.", version: 1, versions: 2 },
];

/** A server holding `sessions`, recording every call the controls make. */
function server(sessions: Session[], extra: Record<string, (...args: never[]) => unknown> = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const byId = (id: string) => sessions.find((session) => session.id === id)!;
  const client = fakeClient({
    listSessions: async (options?: { archived?: string }) => {
      calls.push(["listSessions", options?.archived]);
      return sessions
        .filter((s) => (options?.archived === "only" ? s.archived === true : s.archived !== true))
        .map(sessionSummaryOf);
    },
    getSession: async (id: string) => byId(id),
    loadMessages: async (id: string) => ({
      messages: byId(id).messages,
      cursor_event_id: "0".repeat(20),
      events: [],
      dispose: () => undefined,
    }),
    deleteSession: async (id: string) => void calls.push(["deleteSession", id]),
    updateSession: async (id: string, update: Partial<Session>) => (
      calls.push(["updateSession", id, update]),
      Object.assign(byId(id), update, { updated_at: new Date(Date.parse(byId(id).updated_at) + 1000).toISOString() })
    ),
    switchVersion: async (id: string, index: number, version: number) => (
      calls.push(["switchVersion", id, index, version]),
      byId(id)
    ),
    regenerate: async (id: string, options: unknown) => (
      calls.push(["regenerate", id, options]),
      { request_id: "r2", client_request_id: "c" }
    ),
    resendMessage: async (id: string, index: number, content: string) => (
      calls.push(["resendMessage", id, index, content]),
      { request_id: "r3", client_request_id: "c" }
    ),
    deleteMessages: async (id: string, indices: number[]) => (calls.push(["deleteMessages", id, indices]), byId(id)),
    ...extra,
  });
  return { client, calls };
}

/** On a phone the pickers sit behind "Chat options"; on a wide screen (happy-dom's default width) they show. */
async function openChatOptions() {
  await screen.findByRole("textbox", { name: "Message" });
  const toggle = screen.queryByRole("button", { name: "Chat options" });
  if (toggle) fireEvent.click(toggle);
}

describe("chat controls", () => {
  it("Delete chat asks 'Delete chat?' in a dialog; Cancel keeps it, Delete removes it and returns to the list (K1)", async () => {
    const { client, calls } = server([sessionOf("s1", { title: "Doomed chat", messages: TURN })]);
    const setup = await testStore({ client, hash: "#/s/s1" });
    show(setup);
    // Opened here, so kept for the offline view; deleting it takes it out of the cache as well.
    await waitFor(async () => expect(await setup.env.offline.readMessages("s1")).toHaveLength(2));
    fireEvent.click(await screen.findByRole("button", { name: "Delete chat" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete chat?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog", { name: "Delete chat?" })).toBeNull();
    expect(calls.some(([name]) => name === "deleteSession")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Delete chat" }));
    fireEvent.click(
      within(await screen.findByRole("dialog", { name: "Delete chat?" })).getByRole("button", { name: "Delete" }),
    );
    await waitFor(() => expect(calls).toContainEqual(["deleteSession", "s1"]));
    await waitFor(() => expect(location.hash).toBe("#/"));
    expect(setup.store.sessions.list.value.map((s) => s.id)).not.toContain("s1");
    await waitFor(async () => expect(await setup.env.offline.readMessages("s1")).toBeUndefined());
  });

  it("Pin chat puts the chat first; Archive chat moves it to the Archived view (K2)", async () => {
    const older = sessionOf("old", { title: "Older chat", updated_at: "2026-11-20T00:00:00.000Z" });
    const newer = sessionOf("new", { title: "Newer chat", updated_at: "2026-11-26T00:00:00.000Z" });
    const { client, calls } = server([older, newer]);
    const setup = await testStore({ client, hash: "#/s/old" });
    show(setup);
    await waitFor(() => expect(setup.store.sessions.sorted.value.map((s) => s.id)).toEqual(["new", "old"]));
    const pin = await screen.findByRole("button", { name: "Pin chat" });
    expect(pin.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(pin);
    await waitFor(() => expect(setup.store.sessions.sorted.value.map((s) => s.id)).toEqual(["old", "new"]));
    expect(calls).toContainEqual(["updateSession", "old", { pinned: true }]);
    await waitFor(() =>
      expect(screen.getByRole("button", { name: "Pin chat" }).getAttribute("aria-pressed")).toBe("true"),
    );
    fireEvent.click(screen.getByRole("button", { name: "Archive chat" }));
    await waitFor(() => expect(setup.store.sessions.sorted.value.map((s) => s.id)).toEqual(["new"]));
    setup.store.router.navigate({ name: "archived" });
    expect(await screen.findByRole("heading", { name: "Archived" })).toBeTruthy();
    expect(await screen.findByText("Older chat")).toBeTruthy();
    expect(screen.queryByText("Newer chat")).toBeNull();
    expect(calls).toContainEqual(["listSessions", "only"]);
  });

  it("shows '‹ 1 / 2 ›' on a turn with versions and switches through POST …/version (K3)", async () => {
    const { client, calls } = server([sessionOf("s1", { messages: TURN })]);
    show(await testStore({ client, hash: "#/s/s1" }));
    await screen.findAllByText("what is 2+2?");
    // Once per turn (on its first reply), so "Previous version" names one button.
    const previous = screen.getByRole("button", { name: "Previous version" });
    expect((previous as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("1 / 2")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Next version" }));
    await waitFor(() => expect(calls).toContainEqual(["switchVersion", "s1", 1, 2]));
  });

  it("Copy message copies the whole reply as markdown; Regenerate is on the last reply only (K4)", async () => {
    const messages: Message[] = [
      ...TURN,
      { role: "user", content: "and 3+3?" },
      { role: "assistant", content: "It is `6`." },
    ];
    const { client, calls } = server([sessionOf("s1", { messages })]);
    const setup = await testStore({ client, hash: "#/s/s1" });
    show(setup);
    await screen.findByText("and 3+3?");
    // A chat's first frame mounts a few toolbars in full and completes the rest once the page is still (docs/app.md
    // "Long chats": scroll pacing), so the four come within moments, not all in the first render.
    const copies = await waitFor(() => {
      const found = screen.getAllByRole("button", { name: "Copy message" });
      expect(found).toHaveLength(4);
      return found;
    });
    fireEvent.click(copies[1]!);
    await waitFor(() => expect(setup.copied).toEqual(["It is **4**."]));
    const regenerate = screen.getAllByRole("button", { name: "Regenerate" });
    expect(regenerate).toHaveLength(1);
    fireEvent.click(regenerate[0]!);
    await waitFor(() => expect(calls).toContainEqual(["regenerate", "s1", {}]));
  });

  it("Regenerate may pick another model for that one answer (K4)", async () => {
    const { client, calls } = server([sessionOf("s1", { messages: TURN })], {
      listModels: async () => ({
        provider_id: "default",
        base_url: "",
        model: "scripted",
        models: [{ id: "small" }, { id: "large" }],
        custom_model_allowed: true,
      }),
    });
    show(await testStore({ client, hash: "#/s/s1" }));
    fireEvent.click(await screen.findByRole("button", { name: "Answer with another model" }));
    fireEvent.change(screen.getByRole("combobox", { name: "Model for this answer" }), { target: { value: "large" } });
    await waitFor(() => expect(calls).toContainEqual(["regenerate", "s1", { model: "large" }]));
  });

  it("Edit message then Send resends it; Up in the empty composer edits the last message, focus in its box (K5)", async () => {
    const { client, calls } = server([sessionOf("s1", { messages: TURN })]);
    show(await testStore({ client, hash: "#/s/s1" }));
    await screen.findAllByText("what is 2+2?");
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Message" }), { key: "ArrowUp" });
    const field = await screen.findByRole("textbox", { name: "Edit message" });
    // The focus goes with it: typing at once edits the message, not the empty composer (issue 32 item 7).
    await waitFor(() => expect(document.activeElement).toBe(field));
    fireEvent.input(field, { target: { value: "what is 2+3?" } });
    // "Resend", not a second "Send": the composer's button keeps that name alone.
    fireEvent.click(screen.getByRole("button", { name: "Resend" }));
    await waitFor(() => expect(calls).toContainEqual(["resendMessage", "s1", 0, "what is 2+3?"]));
    fireEvent.click(await screen.findByRole("button", { name: "Edit message" }));
    expect(screen.getByRole("textbox", { name: "Edit message" })).toBeTruthy();
  });

  it("Delete message asks 'Delete message?' first (K6)", async () => {
    const { client, calls } = server([sessionOf("s1", { messages: TURN })]);
    show(await testStore({ client, hash: "#/s/s1" }));
    await screen.findAllByText("what is 2+2?");
    fireEvent.click(screen.getAllByRole("button", { name: "Delete message" })[1]!);
    const dialog = await screen.findByRole("dialog", { name: "Delete message?" });
    expect(calls.some(([name]) => name === "deleteMessages")).toBe(false);
    fireEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(calls).toContainEqual(["deleteMessages", "s1", [1]]));
  });

  it("saves a chat's request options on the session and shows the saved ones (K7)", async () => {
    const agent = {
      ...AGENT,
      request_options_ui: { reasoning_effort: { type: "select" as const, options: ["low", "high"], rich_ui: true } },
    };
    const { client, calls } = server(
      [sessionOf("s1", { messages: TURN, request_options: { reasoning_effort: "high" } })],
      { listAgents: async () => [agent] },
    );
    show(await testStore({ client, hash: "#/s/s1" }));
    await openChatOptions();
    const select = (await screen.findByRole("combobox", { name: "reasoning effort" })) as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe("high"));
    fireEvent.change(select, { target: { value: "low" } });
    await waitFor(() =>
      expect(calls).toContainEqual(["updateSession", "s1", { request_options: { reasoning_effort: "low" } }]),
    );
  });

  it("says when the model list could not be loaded (K8)", async () => {
    const { client } = server([sessionOf("s1", { messages: TURN })], {
      listModels: async () => Promise.reject(new Error("provider down")),
    });
    show(await testStore({ client, hash: "#/s/s1" }));
    await openChatOptions();
    expect(await screen.findByText("The model list could not be loaded; type a model id.")).toBeTruthy();
  });
});
