// The admin token's calls: pairing codes and devices. Only the Devices screen uses it.
import { Gateway } from "./gateway.ts";
import { deviceListSchema, deviceSchema, pairingCodeSchema } from "./schemas.ts";
import { z } from "zod";

export class AdminApi {
  private readonly gateway: Gateway;

  constructor(serverUrl: string, adminToken: string, fetchImpl?: typeof fetch) {
    this.gateway = new Gateway({ baseUrl: serverUrl, token: adminToken, fetch: fetchImpl });
  }

  async listDevices() {
    return (await this.gateway.request("GET", "/devices", deviceListSchema)).devices;
  }

  async revoke(device_id: string): Promise<void> {
    await this.gateway.request("DELETE", `/devices/${encodeURIComponent(device_id)}`, z.looseObject({ device: deviceSchema.optional() }));
  }

  async createPairingCode() {
    return this.gateway.request("POST", "/pairing", pairingCodeSchema, { body: {} });
  }
}
