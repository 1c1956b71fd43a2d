// @vitest-environment happy-dom
// The chat screen, the composer and the connection badge without a browser (docs/app.md C1-C4, B1, LC11, OB14): a chat
// that cannot be loaded shows this device's copy read-only, or says it is not available offline; a send the bridge
// could not deliver says the server is offline; a waiting message the server refused says why; Stop says who stopped;
// the badge reads exactly one of five words.
import { act, fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { h } from "preact";
import { describe, expect, it } from "vitest";
import { NetworkError, ResponseError, type ConnectionStatus } from "../../client/index.ts";
import { ConnectionBadge } from "../../app/src/components/connection-badge.tsx";
import { fakeClient, liveChat, testStore, type FakeClient } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

/** The relay's failure when the bridge answers but the server is not on it (a NetworkError with that reason). */
function serverUnavailable(): NetworkError {
  return Object.assign(new NetworkError("server unavailable"), { reason: "server_unavailable" });
}

useScreens({ sized: true });

describe("chat screen", () => {
  it("says a chat never opened on this device is not available offline (C1)", async () => {
    const client = fakeClient({ loadMessages: () => Promise.reject(new NetworkError("fetch failed")) });
    client.status.set({ state: "offline" });
    show(await testStore({ client, hash: "#/s/never-opened" }));
    expect(await screen.findByText("This chat is not available offline")).toBeTruthy();
    expect(screen.queryByText("How can I help?")).toBeNull();
    expect((screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement).disabled).toBe(true);
  });

  it("shows the messages this device kept, read-only, when the chat cannot be loaded (C2)", async () => {
    const client = fakeClient({ loadMessages: () => Promise.reject(new NetworkError("fetch failed")) });
    client.status.set({ state: "offline" });
    const setup = await testStore({ client, hash: "#/s/s1" });
    await setup.env.offline.writeMessages("s1", [{ role: "user", content: "kept on this phone" }]);
    show(setup);
    expect(await screen.findByText("kept on this phone")).toBeTruthy();
    expect(screen.getByText(/You are offline: these are the last loaded messages/)).toBeTruthy();
  });

  it("says the server is offline when a send could not reach it, and keeps the message waiting (C3, OB9)", async () => {
    let walked = false;
    const client = fakeClient({
      createSession: () => Promise.reject(serverUnavailable()),
      listSessions: async () => {
        walked = true;
        return [];
      },
    });
    show(await testStore({ client, hash: "#/new" }));
    const box = await screen.findByRole("textbox", { name: "Message" });
    // The list's walk (a task after the client's start, SC4) answers before the send: the server was reachable then.
    await waitFor(() => expect(walked).toBe(true));
    await act(async () => undefined);
    fireEvent.input(box, { target: { value: "are you there?" } });
    fireEvent.submit(box.closest("form")!);
    // The outbox's code loads on first use (a dynamic import): slow on a loaded machine, so a wide bound.
    const waiting = await screen.findByRole("list", { name: "Waiting to send" }, { timeout: 15_000 });
    expect(within(waiting).getByText("Waiting to send")).toBeTruthy();
    expect(within(waiting).getByText("are you there?")).toBeTruthy();
    await waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(""));
    expect(screen.getByRole("status").textContent).toBe("Server offline");
    // The new chat's address now carries its client_session_id (a reload finds it, OB10), and the list shows it.
    const [, client_session_id] = /^#\/new\/(.+)$/.exec(location.hash) ?? [];
    expect(client_session_id).toMatch(/^cs/);
    const started = screen.getByRole("list", { name: "Chats started offline" });
    const row = within(started).getByRole("link", { name: /are you there\?/ });
    expect(row.getAttribute("href")).toBe(`#/new/${client_session_id}`);
    expect(row.getAttribute("aria-current")).toBe("page");
  });

  it("shows a waiting message the server refused as it is with its reason, Edit and Cancel; cancelled, it is gone (OB14)", async () => {
    const client = liveChat({
      send: () => Promise.reject(new ResponseError(413, "payload_too_large", undefined, "body too large")),
    });
    client.status.set({ state: "offline" });
    const setup = await testStore({ client, hash: "#/s/s1" });
    show(setup);
    await screen.findByText("hi");
    await setup.store.outbox.add({ id: "crid-long", session_id: "s1", text: "a very long paste" });
    client.status.set({ state: "live" });
    const waiting = await screen.findByRole("list", { name: "Waiting to send" }, { timeout: 15_000 });
    expect(
      await within(waiting).findByText(
        "Not sent: the message is longer than the server accepts. Shorten it, or split it in two.",
      ),
    ).toBeTruthy();
    expect(within(waiting).getByRole("button", { name: "Edit waiting message" })).toBeTruthy();
    fireEvent.click(within(waiting).getByRole("button", { name: "Cancel waiting message" }));
    await waitFor(() => expect(screen.queryByRole("list", { name: "Waiting to send" })).toBeNull());
  });

  it("says 'You stopped this reply' for a Stop, and that the server restarted for a shutdown (C4)", async () => {
    const client = liveChat();
    const { cancels, emit } = client;
    show(await testStore({ client, hash: "#/s/s1" }));
    await screen.findByText("hi");
    emit("request_started", { request_id: "r1", stream: true });
    fireEvent.click(await screen.findByRole("button", { name: "Stop" }));
    expect(cancels).toEqual(["r1"]);
    emit("request_cancelled", { request_id: "r1", reason: "user" });
    emit("request_completed", { request_id: "r1" });
    expect(await screen.findByText("You stopped this reply.")).toBeTruthy();
    emit("request_started", { request_id: "r2", stream: true });
    emit("request_cancelled", { request_id: "r2", reason: "shutdown" });
    emit("request_completed", { request_id: "r2" });
    expect(await screen.findByText("This reply was cut short: the server restarted.")).toBeTruthy();
    expect(screen.getAllByText("You stopped this reply.")).toHaveLength(1);
  });
});

describe("opening a chat", () => {
  it("asks for its messages as the screen renders, before the screen's elements are in the page (LC11)", async () => {
    // What was in the page when the first read was asked for: the composer is made with the rest of the screen.
    const composerAtRead: boolean[] = [];
    const client = fakeClient({
      loadMessages: async () => (
        composerAtRead.push(document.querySelector("#composer") !== null),
        {
          messages: [{ role: "user", content: "asked early" }],
          cursor_event_id: "0".repeat(20),
          events: [],
          dispose: () => undefined,
        }
      ),
    });
    show(await testStore({ client, hash: "#/s/s1" }));
    expect(await screen.findByText("asked early")).toBeTruthy();
    expect(document.querySelector("#composer")).not.toBeNull();
    expect(composerAtRead).toEqual([false]);
  });
});

describe("notification rail", () => {
  it("takes no room on a wide screen while the chat has no notification (C5)", async () => {
    show(await testStore({ client: liveChat(), hash: "#/s/s1" }));
    await screen.findByText("hi");
    // happy-dom's window is wide (1024 px): the desktop layout, where the rail would stand beside the chat.
    expect(document.querySelector(".chat-layout.wide")).not.toBeNull();
    expect(screen.queryByRole("complementary", { name: "Session notifications" })).toBeNull();
    expect(document.querySelector("aside.rail")).toBeNull();
  });
});

describe("connection badge", () => {
  const cases: Array<[string, ConnectionStatus, boolean, string]> = [
    ["live", { state: "live" }, true, "Live"],
    ["the server off the bridge", { state: "offline", server: { online: false } }, true, "Server offline"],
    ["polling", { state: "polling" }, true, "Polling"],
    ["HTTP failing", { state: "offline" }, true, "Offline"],
    ["no network", { state: "live" }, false, "Offline"],
    ["catching up", { state: "catching_up" }, true, "Connecting"],
  ];
  it.each(cases)("reads exactly one word for %s (B1)", async (_label, status, online, word) => {
    const client: FakeClient = fakeClient();
    const setup = await testStore({ client, env: { isOnline: () => online } });
    client.status.set(status);
    show(setup, () => h(ConnectionBadge, {}));
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe(word));
  });
});
