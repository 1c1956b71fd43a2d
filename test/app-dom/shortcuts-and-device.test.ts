// @vitest-environment happy-dom
// Keyboard shortcuts, the menu, this device, interrupted replies and the one offline cache, without a browser
// (docs/app.md K9-K12, K15, O5): Ctrl/Cmd+Shift+O opens a new chat and Ctrl/Cmd+K the search route; Esc stops a reply;
// "Keyboard shortcuts" lists them; the skip link focuses the composer; This device renames itself and "Unpair this
// device" revokes on the server before forgetting, and a name typed before the device's record is read is kept; each
// `metadata.interrupted` is said as what happened.
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { CACHE_DB_NAME, ResponseError } from "../../client/index.ts";
import { interruptionOf } from "../../app/src/components/message-item.tsx";
import { OFFLINE_DB } from "../../app/src/state/offline-db-name.ts";
import { forgetOnRevokedMessage } from "../../app/src/state/unpair.ts";
import { fakeClient, liveChat, sessionOf, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

useScreens({ sized: true });

const DEVICE = {
  device_id: "dev1",
  name: "Chrome on Linux",
  created_at: "2026-11-27T07:00:00Z",
  last_seen_at: null,
  revoked_at: null,
};

describe("keyboard", () => {
  it("Ctrl+Shift+O opens a new chat, Cmd+K the search route (K9)", async () => {
    const setup = await testStore({ client: fakeClient(), hash: "#/" });
    show(setup);
    fireEvent.keyDown(document, { key: "O", ctrlKey: true, shiftKey: true });
    expect(location.hash).toBe("#/new");
    expect(setup.store.router.route.value.name).toBe("new_chat");
    fireEvent.keyDown(document, { key: "k", metaKey: true });
    expect(setup.store.router.route.value.name).toBe("search");
  });

  it("Esc stops the reply being written (K9)", async () => {
    const client = liveChat({
      getSession: async (id: string) => sessionOf(id, { messages: [{ role: "user", content: "hi" }] }),
    });
    const { cancels, emit } = client;
    show(await testStore({ client, hash: "#/s/s1" }));
    await screen.findByRole("button", { name: "Send" });
    fireEvent.keyDown(document, { key: "Escape" });
    expect(cancels).toEqual([]);
    emit("request_started", { request_id: "r1", stream: true });
    await screen.findByRole("button", { name: "Stop" });
    fireEvent.keyDown(document, { key: "Escape" });
    expect(cancels).toEqual(["r1"]);
  });

  it("the menu lists the shortcuts; the skip link focuses the composer (K10)", async () => {
    show(await testStore({ client: fakeClient(), hash: "#/new" }));
    fireEvent.click(await screen.findByRole("button", { name: "Keyboard shortcuts" }));
    const dialog = await screen.findByRole("dialog", { name: "Keyboard shortcuts" });
    expect(within(dialog).getByText("New chat")).toBeTruthy();
    expect(within(dialog).getByText("Ctrl+Shift+O")).toBeTruthy();
    expect(within(dialog).getByText("Stop the reply being written")).toBeTruthy();
    fireEvent.click(within(dialog).getByRole("button", { name: "Close" }));
    fireEvent.click(screen.getByRole("link", { name: "Skip to message box" }));
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Message" }));
    expect(location.hash).toBe("#/new");
  });
});

describe("this device", () => {
  it("renames itself with PATCH /devices/self and marks itself in the device list (K11)", async () => {
    const renamed: string[] = [];
    const client = fakeClient({
      getSelfDevice: async () => DEVICE,
      renameSelfDevice: async (name: string) => (renamed.push(name), { ...DEVICE, name }),
    });
    const setup = await testStore({ client, hash: "#/devices" });
    show(setup);
    const section = await screen.findByRole("region", { name: "This device" });
    const field = within(section).getByRole("textbox", { name: "Device name" }) as HTMLInputElement;
    await waitFor(() => expect(field.value).toBe("Chrome on Linux"));
    fireEvent.input(field, { target: { value: "Work laptop" } });
    fireEvent.click(within(section).getByRole("button", { name: "Rename this device" }));
    await waitFor(() => expect(renamed).toEqual(["Work laptop"]));
    expect(await within(section).findByText("Renamed.")).toBeTruthy();
  });

  it("keeps a name typed before the device's record is read: the late record does not overwrite it (K15)", async () => {
    let answer: (device: typeof DEVICE) => void = () => undefined;
    const client = fakeClient({ getSelfDevice: () => new Promise<typeof DEVICE>((resolve) => (answer = resolve)) });
    const setup = await testStore({ client, hash: "#/devices" });
    show(setup);
    const section = await screen.findByRole("region", { name: "This device" });
    const field = within(section).getByRole("textbox", { name: "Device name" }) as HTMLInputElement;
    fireEvent.input(field, { target: { value: "Work laptop" } });
    answer(DEVICE);
    // The record is in: the device's name shows beside the field, and the field keeps what was typed.
    expect(await within(section).findByText("Chrome on Linux")).toBeTruthy();
    expect(field.value).toBe("Work laptop");
    expect(within(section).getByRole("button", { name: "Rename this device" })).toHaveProperty("disabled", false);
  });

  it("Unpair this device revokes on the server, then forgets and returns to pairing; a refusal keeps it paired (K12)", async () => {
    let refuse = true;
    const unpaired: number[] = [];
    const client = fakeClient({
      getSelfDevice: async () => DEVICE,
      unpairSelfDevice: async () => {
        unpaired.push(1);
        if (refuse) throw new ResponseError(500, "internal", {}, "boom");
        return { ...DEVICE, revoked_at: "2026-11-27T08:00:00Z" };
      },
    });
    const setup = await testStore({ client, hash: "#/devices" });
    show(setup);
    const section = await screen.findByRole("region", { name: "This device" });
    fireEvent.click(within(section).getByRole("button", { name: "Unpair this device" }));
    fireEvent.click(
      within(await screen.findByRole("dialog", { name: "Unpair this device?" })).getByRole("button", {
        name: "Unpair",
      }),
    );
    expect(await within(section).findByText(/Not unpaired/)).toBeTruthy();
    expect(localStorage.getItem("chat-relay:credentials")).not.toBeNull();
    refuse = false;
    fireEvent.click(within(section).getByRole("button", { name: "Unpair this device" }));
    fireEvent.click(
      within(await screen.findByRole("dialog", { name: "Unpair this device?" })).getByRole("button", {
        name: "Unpair",
      }),
    );
    await waitFor(() => expect(setup.store.connection.paired.value).toBeUndefined());
    expect(unpaired).toHaveLength(2);
    expect(localStorage.getItem("chat-relay:credentials")).toBeNull();
  });
});

describe("revoked while the app was closed", () => {
  it("the service worker's chat-relay:revoked message makes the window forget its credentials (K14)", async () => {
    const setup = await testStore({ client: fakeClient(), hash: "#/" });
    const worker = new EventTarget();
    const stop = forgetOnRevokedMessage(worker, setup.store.connection);
    worker.dispatchEvent(new MessageEvent("message", { data: { type: "chat-relay:open", url: "#/" } }));
    expect(setup.store.connection.paired.value).toBeDefined();
    worker.dispatchEvent(new MessageEvent("message", { data: { type: "chat-relay:revoked" } }));
    await waitFor(() => expect(setup.store.connection.paired.value).toBeUndefined());
    expect(setup.store.connection.revokedNotice.value).toBe(true);
    expect(localStorage.getItem("chat-relay:credentials")).toBeNull();
    stop();
  });
});

describe("interrupted replies and the offline cache", () => {
  it("says why each reply was interrupted (K13)", () => {
    expect(interruptionOf({ interrupted: "user" })).toBe("Stopped before the end.");
    expect(interruptionOf({ interrupted: "shutdown" })).toBe("Interrupted: the server restarted.");
    expect(interruptionOf({ interrupted: "crash" })).toMatch(/stopped unexpectedly/);
    expect(interruptionOf({ interrupted: true, interrupted_reason: "error" })).toMatch(/failed with an error/);
    expect(interruptionOf({})).toBeUndefined();
  });

  it("the service worker wipes the database the library's IndexedDbCache keeps (O5)", () => {
    expect(OFFLINE_DB).toBe(CACHE_DB_NAME);
  });
});
