// One stack per app test file: the scripted chat-completions backend, a real server (SQLite in a temp dir) that
// serves the built app at / (as `npm start` does) on a port fixed for the file, so a stopped server comes back
// at the same address, and a real bridge. Pairing codes and pair_url come from the real admin route.
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { startScriptedBackend, type ScriptedBackend } from "../../../scripts/scripted-backend/index.ts";
import { startForwarder } from "../../../server/forwarder/forwarder.ts";
import { hashPairingCode } from "../../../server/pairing/codes.ts";
import type { ConfigInput } from "../../../server/config/schema.ts";
import { startTestServer } from "../../support/server.ts";
import { Stack, until } from "../../client/support/stack.ts";
import { buildPairUrl } from "../../../client/index.ts";
import { freePort } from "../../support/ports.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));

export class AppStack extends Stack {
  backend!: ScriptedBackend;
  private config: ConfigInput = {};
  /** The server's `public_url` (server_url, and pair_url unless appOnBridge); unset: its own URL. */
  private publicUrl: string | undefined;
  /** Whether pair_url opens the app on the bridge (the server's `app_url` is the bridge's app URL). */
  private appOnBridge = false;

  static async startApp(
    config: ConfigInput = {},
    options: { publicUrl?: string; appOnBridge?: boolean } = {},
  ): Promise<AppStack> {
    const stack = new AppStack();
    stack.backend = await startScriptedBackend();
    stack.config = config;
    stack.publicUrl = options.publicUrl;
    stack.appOnBridge = options.appOnBridge ?? false;
    await stack.startBridge();
    await stack.startServer();
    return stack;
  }

  /** The server, its own URL as public URL unless told another (pair_url and server_url point at the app's origin). */
  override async startServer(): Promise<void> {
    if (this.serverPort === 0) this.serverPort = await freePort();
    const config: ConfigInput = {
      providers: { default: { provider: "reference_compatible", model: "scripted", base_url: this.backend.url } },
      plugins: ["./app-tools.ts"],
      ...this.config,
      server: {
        server_id: "srv1",
        public_url: this.publicUrl ?? this.serverUrl,
        ...(this.appOnBridge ? { app_url: this.bridgeAppUrl } : {}),
      },
    };
    this.server = await startTestServer(config, {
      dataDir: this.serverDir,
      bridgeUrl: this.bridgeUrl,
      configDir: FIXTURES,
    });
    await this.server.runtime.app.listen({ host: "127.0.0.1", port: this.serverPort });
    this.serverPort = (this.server.runtime.app.server.address() as AddressInfo).port;
    // With the app, the forwarder runs the calls the app relays through the bridge (as `npm start` does).
    this.forwarder = startForwarder(this.server.runtime.ctx, {
      bridgeUrl: this.bridgeUrl,
      reconnectAfterMs: () => 20,
      app: this.server.runtime.app,
    });
  }

  /** The app as the bridge serves it: http(s) on the bridge's port, at `/`. */
  get bridgeAppUrl(): string {
    return this.bridgeUrl.replace(/^ws/, "http").replace(/\/socket$/, "/");
  }

  /** POST /pairing as the admin, once the bridge knows the code: {code, pair_url, ...}. */
  async createPairing(): Promise<{ code: string; pair_url: string }> {
    const created = await this.server.request({ method: "POST", url: "/pairing", payload: {} });
    const body = created.json as { code: string; bridge_url: string; pair_url?: string };
    await until(
      () => this.bridge?.core.registry.findCode(hashPairingCode(body.code)) !== undefined,
      "code registered on the bridge",
    );
    return {
      code: body.code,
      pair_url: body.pair_url ?? buildPairUrl(this.serverUrl, { code: body.code, bridge: body.bridge_url }),
    };
  }

  async devices(): Promise<Array<{ device_id: string; name: string; revoked_at: string | null }>> {
    return (await this.server.request({ method: "GET", url: "/devices" })).json.devices;
  }

  /** GET /app-config.json as this stack's server answers it (client/wire/app-config.ts). */
  get appConfig(): { server_id: string; server_url: string; bridge_url: string; app_url: string } {
    return {
      server_id: "srv1",
      server_url: this.publicUrl ?? this.serverUrl,
      bridge_url: this.bridgeUrl,
      app_url: this.appOnBridge ? this.bridgeAppUrl : `${this.serverUrl}/`,
    };
  }

  override async close(): Promise<void> {
    await super.close();
    await this.backend.close();
  }
}
