// The admin's calls (pairing a new device, listing and revoking devices, producer tokens, the MCP report, export and
// import; through `api`, every other route as the admin: settings, MCP servers): a small class of its own, because it
// holds the admin token, which only the server's own machine should ever see, never a device's credentials. Each call goes through its route's contract (call-route.ts).
import type { DeviceRecord, PairingCreated } from "../wire/api.ts";
import type { RouteAnswer } from "../wire/routes/route.ts";
import { createPairingRoute, listDevicesRoute, revokeDeviceRoute } from "../wire/routes/pairing.ts";
import { createProducerRoute, listProducersRoute, revokeProducerRoute } from "../wire/routes/producers.ts";
import { mcpReportRoute } from "../wire/routes/mcp.ts";
import { exportAllRoute, importRoute } from "../wire/routes/export.ts";
import type { z } from "zod";
import { HttpApi, type BinaryBody, type FetchLike, type RequestOptions } from "../transport/http.ts";
import { callRoute } from "./call-route.ts";
import { ServerApi } from "./server-api.ts";

export interface AdminClientOptions {
  /** The server's HTTP base URL, e.g. http://127.0.0.1:8787. */
  serverUrl: string;
  adminToken: string;
  fetch?: FetchLike;
}

export class AdminClient {
  private readonly http: HttpApi;
  /** Every server call, made with the admin token: the admin's routes (settings, MCP servers) among them. */
  readonly api: ServerApi;

  constructor(options: AdminClientOptions) {
    const http = new HttpApi({ baseUrl: options.serverUrl, token: options.adminToken, fetch: options.fetch });
    this.http = http;
    this.api = new (class extends ServerApi {
      request<S extends z.ZodType>(method: string, path: string, schema: S, options?: RequestOptions) {
        return http.request(method, path, schema, options);
      }
    })();
  }

  /**
   * A single-use pairing code with its expiry and the pair_url an app opens (show it as a QR code); for the acting
   * admin person, or for `person_id` (audited).
   */
  createPairing(options: { person_id?: string } = {}): Promise<PairingCreated> {
    return callRoute(this.http, createPairingRoute, { body: options });
  }

  async listDevices(): Promise<DeviceRecord[]> {
    return (await callRoute(this.http, listDevicesRoute, {})).devices;
  }

  /** Revokes at once, on the bridge too: the device's app stops with `revoked`. */
  async revokeDevice(deviceId: string): Promise<DeviceRecord> {
    return (await callRoute(this.http, revokeDeviceRoute, { params: { device_id: deviceId } })).device;
  }

  /** A producer token for a script that publishes notifications: the token is shown this once. */
  createProducer(name: string): Promise<RouteAnswer<typeof createProducerRoute>> {
    return callRoute(this.http, createProducerRoute, { body: { name } });
  }

  async listProducers(): Promise<RouteAnswer<typeof listProducersRoute>["producers"]> {
    return (await callRoute(this.http, listProducersRoute, {})).producers;
  }

  async revokeProducer(producerId: string): Promise<void> {
    await callRoute(this.http, revokeProducerRoute, { params: { producer_id: producerId } });
  }

  /** Each MCP server with its status, tools and last error (docs/tools.md "GET /mcp"). */
  async mcpReport(): Promise<RouteAnswer<typeof mcpReportRoute>["servers"]> {
    return (await callRoute(this.http, mcpReportRoute, {})).servers;
  }

  /** Every chat as one JSON file (the same file POST /import takes). */
  exportAll(): Promise<BinaryBody> {
    return callRoute(this.http, exportAllRoute, {});
  }

  /** Imports a chats file as it is (GET /export's file, or ChatGPT's conversations.json): the server reads it whole. */
  importFile(file: BinaryBody): Promise<RouteAnswer<typeof importRoute>> {
    return callRoute(this.http, importRoute, { body: file });
  }

  /** Imports chats: GET /export's array, or ChatGPT's conversations.json, parsed. */
  importChats(records: unknown[]): Promise<RouteAnswer<typeof importRoute>> {
    return callRoute(this.http, importRoute, { body: records });
  }
}
