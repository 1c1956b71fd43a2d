// @vitest-environment happy-dom
// The Devices screen without a browser (docs/app.md D1-D2): a server that cannot be reached is said, never left as
// "Loading…"; Add device shows the pairing link as text with a Copy button beside the QR code.
import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { h } from "preact";
import { describe, expect, it } from "vitest";
import { DevicesScreen } from "../../app/src/screens/devices-screen.tsx";
import { ADMIN_TOKEN_KEY } from "../../app/src/state/admin.ts";
import { testStore, type TestStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

const PAIR_URL = "http://server.test/#/pair?code=ABCDE-FGHJK&bridge=ws%3A%2F%2Fbridge.test%2Fsocket";

const showDevices = (setup: TestStore) => show(setup, () => h(DevicesScreen, {}));

/** The admin routes of a server: `GET /devices` and `POST /pairing`, or a network failure. */
function adminServer(reachable: boolean) {
  return async (url: string, init?: RequestInit): Promise<Response> => {
    if (!reachable) throw new TypeError("Failed to fetch");
    if (url.endsWith("/devices"))
      return Response.json({
        devices: [
          { device_id: "d1", name: "Phone", created_at: "2026-11-27T07:00:00Z", last_seen_at: null, revoked_at: null },
        ],
      });
    if (url.endsWith("/pairing") && init?.method === "POST") {
      return Response.json(
        {
          code: "ABCDE-FGHJK",
          expires_at: "2026-11-27T08:10:00Z",
          server_id: "srv1",
          bridge_url: "ws://bridge.test/socket",
          server_url: "http://server.test",
          pair_url: PAIR_URL,
        },
        { status: 201 },
      );
    }
    return Response.json({ error: { code: "not_found", message: "no route" } }, { status: 404 });
  };
}

useScreens();

describe("devices screen", () => {
  it("asks for the admin token first (D1)", async () => {
    showDevices(await testStore());
    expect(screen.getByLabelText("Admin token")).toBeTruthy();
  });

  it("says the server could not be reached instead of staying on Loading… (D1)", async () => {
    const setup = await testStore({ env: { fetch: adminServer(false) } });
    setup.store.admin.save("admin-secret");
    showDevices(setup);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("could not be reached");
    expect(screen.queryByText("Loading…")).toBeNull();
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
  });

  it("shows the pairing link as text with a Copy button beside the QR code (D2)", async () => {
    const setup = await testStore({ env: { fetch: adminServer(true) } });
    localStorage.setItem(ADMIN_TOKEN_KEY, JSON.stringify("admin-secret"));
    setup.store.admin.save("admin-secret");
    showDevices(setup);
    await screen.findByText("Phone");
    fireEvent.click(screen.getByRole("button", { name: "Add device" }));
    const group = await screen.findByRole("group", { name: "Pairing link" });
    expect(group.querySelector("a")?.textContent).toBe(PAIR_URL);
    expect(screen.getByRole("img", { name: /QR code: pairing link/ })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Copy" }));
    await waitFor(() => expect(setup.copied).toEqual([PAIR_URL]));
    expect((await screen.findByText("Copied")).getAttribute("role")).toBe("status");
  });
});
