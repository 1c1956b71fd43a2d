// @vitest-environment happy-dom
// The pairing screen without a browser (docs/app.md P1-P4): a link pairs in one step with the code gone from the
// address bar first, a link without a bridge takes the server's from /app-config.json, a used link says how to get
// a new one, a paired browser ignores a link, and the typed-code form starts with the server's bridge address.
import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { PairingError, type PairOptions } from "../../client/index.ts";
import { CREDENTIALS, fakeClient, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";

const CONFIG = {
  server_id: "srv1",
  server_url: "http://server.test",
  bridge_url: "ws://bridge.test:5000/socket",
  app_url: "http://server.test/",
};

useScreens();

describe("pairing screen", () => {
  it("pairs from a printed link without a bridge: the server's bridge, the code out of the address bar first, then a new chat (P1)", async () => {
    const calls: Array<{ options: PairOptions; hash: string }> = [];
    const client = fakeClient();
    const setup = await testStore({
      hash: "#/pair?code=ABCDE-FGHJK",
      appConfig: CONFIG,
      env: {
        pair: async (options) => (calls.push({ options, hash: location.hash }), CREDENTIALS),
        connect: (() => client.client) as never,
      },
    });
    show(setup);
    await waitFor(() => expect(location.hash).toBe("#/new"));
    expect(calls).toHaveLength(1);
    // The join names the server, so a code made before the server's first link is retried, not refused (P6).
    expect(calls[0]!.options).toMatchObject({
      bridgeUrl: CONFIG.bridge_url,
      code: "ABCDE-FGHJK",
      deviceName: expect.stringMatching(/^Chrome on Linux \([0-9a-f]{4}\)$/),
      serverId: CONFIG.server_id,
    });
    expect(calls[0]!.hash).toBe("#/pair");
    expect(setup.store.connection.paired.value?.credentials).toEqual(CREDENTIALS);
  });

  it("says a used or expired link was used and how to get a new one (P2)", async () => {
    const setup = await testStore({
      hash: "#/pair?code=USED1-CODE2&bridge=ws%3A%2F%2Fbridge.test%2Fsocket",
      env: { pair: async () => Promise.reject(new PairingError("invalid_code")) },
    });
    show(setup);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("This pairing link was already used or has expired");
    expect(alert.textContent).toContain("npm run pair");
    expect(location.hash).toBe("#/pair");
    expect((screen.getByLabelText("Pairing code") as HTMLInputElement).value).toBe("");
  });

  it("ignores a link in a browser already paired (P3)", async () => {
    let pairs = 0;
    const setup = await testStore({
      hash: "#/pair?code=OTHER-CODE1&bridge=ws%3A%2F%2Fb.test%2Fsocket",
      client: fakeClient(),
      env: { pair: async () => (pairs++, CREDENTIALS) },
    });
    show(setup);
    await waitFor(() => expect(location.hash).toBe("#/"));
    expect(pairs).toBe(0);
    expect(setup.store.connection.paired.value).toBeDefined();
  });

  it("fills the typed-code form's bridge address from /app-config.json, and says why a code failed (P4)", async () => {
    const setup = await testStore({
      hash: "#/pair",
      appConfig: CONFIG,
      env: { pair: async () => Promise.reject(new PairingError("expired")) },
    });
    show(setup);
    const bridge = screen.getByLabelText("Bridge address") as HTMLInputElement;
    await waitFor(() => expect(bridge.value).toBe(CONFIG.bridge_url));
    fireEvent.input(screen.getByLabelText("Pairing code"), { target: { value: "OLD12-CODE3" } });
    fireEvent.submit(screen.getByRole("button", { name: "Pair" }).closest("form")!);
    expect((await screen.findByRole("alert")).textContent).toContain("has expired");
  });

  it("guesses port 4000 of the page's host when the server does not say (P4)", async () => {
    const setup = await testStore({ hash: "#/pair" });
    show(setup);
    const bridge = screen.getByLabelText("Bridge address") as HTMLInputElement;
    await waitFor(() => expect(bridge.value).toBe(`ws://${location.hostname}:4000/socket`));
    expect(setup.reported).toEqual([]);
  });
});
