// Admin routes of pairing (docs/bridge.md "Pairing and devices"): create a pairing code, list devices (never token
// hashes), revoke one here and, through the forwarder's grants push, on the bridge within the same second.
import { z } from "zod";
import { deviceListSchema, deviceRevokedSchema, pairingCreatedSchema } from "../api.ts";
import { defineRoute } from "./route.ts";

export const createPairingRoute = defineRoute({
  method: "POST",
  path: "/pairing",
  body: z.object({}).strict().default({}),
  answer: pairingCreatedSchema,
  status: 201,
  errors: [],
  admin: true,
});

export const listDevicesRoute = defineRoute({
  method: "GET",
  path: "/devices",
  answer: deviceListSchema,
  status: 200,
  errors: [],
  admin: true,
});

export const revokeDeviceRoute = defineRoute({
  method: "DELETE",
  path: "/devices/:device_id",
  params: z.object({ device_id: z.string().min(1).max(100) }).strict(),
  answer: deviceRevokedSchema,
  status: 200,
  errors: ["device_not_found"],
  admin: true,
});
