// The admin's calls (pairing a new device, listing and revoking devices): a small class of its own, because it
// holds the admin token, which only the server's own machine should ever see, never a device's credentials.
import {
  deviceListSchema,
  deviceRevokedSchema,
  pairingCreatedSchema,
  type DeviceRecord,
  type PairingCreated,
} from "../wire/api.ts";
import { HttpApi, type FetchLike, type RequestOptions } from "../transport/http.ts";
import type { z } from "zod";
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

  /** A single-use pairing code with its expiry and the pair_url an app opens (show it as a QR code). */
  createPairing(): Promise<PairingCreated> {
    return this.http.request("POST", "/pairing", pairingCreatedSchema, { body: {} });
  }

  async listDevices(): Promise<DeviceRecord[]> {
    return (await this.http.request("GET", "/devices", deviceListSchema)).devices;
  }

  /** Revokes at once, on the bridge too: the device's app stops with `revoked`. */
  async revokeDevice(deviceId: string): Promise<DeviceRecord> {
    return (await this.http.request("DELETE", `/devices/${encodeURIComponent(deviceId)}`, deviceRevokedSchema)).device;
  }
}
