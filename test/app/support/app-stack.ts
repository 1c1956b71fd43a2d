// One stack per app test file: the scripted chat-completions backend, a real server (SQLite in a temp dir) whose
// public URL is the app's front, a real bridge, and the front serving app/dist. Pairing codes and pair_url come
// from the real admin route.
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { startScriptedBackend, type ScriptedBackend } from "../../../scripts/scripted-backend/index.ts";
import { startForwarder } from "../../../server/forwarder/forwarder.ts";
import { hashPairingCode } from "../../../server/pairing/codes.ts";
import type { ConfigInput } from "../../../server/config/schema.ts";
import { startTestServer } from "../../support/server.ts";
import { Stack, until } from "../../client/support/stack.ts";
import { buildPairUrl } from "../../../client/index.ts";
import { AppFront } from "./app-front.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));

export class AppStack extends Stack {
  readonly front = new AppFront(() => this.serverUrl);
  backend!: ScriptedBackend;
  private config: ConfigInput = {};

  static async startApp(config: ConfigInput = {}): Promise<AppStack> {
    const stack = new AppStack();
    stack.backend = await startScriptedBackend();
    stack.config = config;
    await stack.front.start();
    await stack.startBridge();
    await stack.startServer();
    return stack;
  }

  /** The server, with the front's URL as its public URL (so pair_url and server_url point at the app's origin). */
  override async startServer(): Promise<void> {
    const config: ConfigInput = {
      providers: { default: { provider: "reference_compatible", model: "scripted", base_url: this.backend.url } },
      plugins: ["./app-tools.ts"],
      ...this.config,
      server: { server_id: "srv1", public_url: this.front.url },
    };
    this.server = await startTestServer(config, { dataDir: this.serverDir, bridgeUrl: this.bridgeUrl, configDir: FIXTURES });
    await this.server.runtime.app.listen({ host: "127.0.0.1", port: this.serverPort });
    this.serverPort = (this.server.runtime.app.server.address() as AddressInfo).port;
    this.forwarder = startForwarder(this.server.runtime.ctx, { bridgeUrl: this.bridgeUrl, reconnectAfterMs: () => 20 });
  }

  /** POST /pairing as the admin, once the bridge knows the code: {code, pair_url, ...}. */
  async createPairing(): Promise<{ code: string; pair_url: string }> {
    const created = await this.server.request({ method: "POST", url: "/pairing", payload: {} });
    const body = created.json as { code: string; bridge_url: string; pair_url?: string };
    await until(() => this.bridge?.core.registry.findCode(hashPairingCode(body.code)) !== undefined, "code registered on the bridge");
    return { code: body.code, pair_url: body.pair_url ?? buildPairUrl(this.front.url, { code: body.code, bridge: body.bridge_url }) };
  }

  async devices(): Promise<Array<{ device_id: string; name: string; revoked_at: string | null }>> {
    return (await this.server.request({ method: "GET", url: "/devices" })).json.devices;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.front.stop();
    await this.backend.close();
  }
}
