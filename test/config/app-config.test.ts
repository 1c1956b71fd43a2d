// GET /app-config.json: what the app served by this server is told about where its server and bridge are. Served
// without a token, shaped by client/wire/app-config.ts, following BRIDGE_PUBLIC_URL and server.app_url, and never
// carrying the server's key (docs/security.md "What the app is told").
import { describe, expect, it } from "vitest";
import { appConfigSchema } from "../../client/wire/app-config.ts";
import { startTestServer } from "../support/server.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

describe("GET /app-config.json", () => {
  it("answers without a token with the server's id and the URLs apps use, and no key", async () => {
    const server = closing.own(
      await startTestServer(
        { server: { server_id: "home" } },
        { serverUrl: "http://127.0.0.1:8787", bridgeUrl: "ws://127.0.0.1:5000/socket" },
      ),
    );
    const response = await server.request({ method: "GET", url: "/app-config.json", token: null });
    expect(response.status).toBe(200);
    expect(appConfigSchema.parse(response.json)).toEqual({
      server_id: "home",
      server_url: "http://127.0.0.1:8787",
      bridge_url: "ws://127.0.0.1:5000/socket",
      app_url: "http://127.0.0.1:8787",
    });
    const key = server.runtime.ctx.e2e.publicKey;
    expect(response.text).not.toContain(key);
    expect(response.text).not.toMatch(/key|token|fingerprint/i);
  });

  it("gives BRIDGE_PUBLIC_URL and server.app_url when they are set, and a null bridge without one", async () => {
    let server = closing.own(
      await startTestServer(
        {
          server: { server_id: "home", public_url: "https://chat.example.com", app_url: "https://relay.example.com/" },
        },
        { bridgeUrl: "ws://127.0.0.1:4000/socket", bridgePublicUrl: "wss://relay.example.com/socket" },
      ),
    );
    expect((await server.request({ method: "GET", url: "/app-config.json", token: null })).json).toEqual({
      server_id: "home",
      server_url: "https://chat.example.com",
      bridge_url: "wss://relay.example.com/socket",
      app_url: "https://relay.example.com/",
    });
    await closing.close();
    server = closing.own(await startTestServer({}, { bridgeUrl: "" }));
    const alone = (await server.request({ method: "GET", url: "/app-config.json", token: null })).json;
    expect(alone).toMatchObject({ server_id: server.runtime.ctx.serverId, bridge_url: null });
  });

  it("tells the config's offline.max_mb only when the config has that section, and refuses a bad one", async () => {
    const server = closing.own(await startTestServer({ server: { server_id: "home" }, offline: { max_mb: 200 } }, {}));
    const told = (await server.request({ method: "GET", url: "/app-config.json", token: null })).json;
    expect(appConfigSchema.parse(told).offline).toEqual({ max_mb: 200 });
    await closing.close();
    for (const offline of [{ max_mb: 0 }, { max_mb: 1.5 }, { max_mb: 20_000 }, { max_mb: 50, extra: true }])
      await expect(startTestServer({ offline } as never, {})).rejects.toThrow(/offline/);
  });
});
