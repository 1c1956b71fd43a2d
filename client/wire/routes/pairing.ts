// Pairing and devices (docs/bridge.md "Pairing and devices", docs/people.md "Routes"): create a pairing code for a
// person (the caller's own; another's needs the admin role), list devices (never token hashes: the caller's person's,
// everyone's for the admin role), revoke one here and, through the forwarder's grants push, on the bridge within the
// same second.
import { z } from "zod";
import { deviceListSchema, deviceRevokedSchema, pairingCreatedSchema } from "../api.ts";
import { defineRoute } from "./route.ts";

export const createPairingRoute = defineRoute("POST", "/pairing", () => ({
  body: z
    .object({ person_id: z.string().min(1).max(100).optional() })
    .strict()
    .default({}),
  answer: pairingCreatedSchema,
  status: 201,
  errors: ["admin_required", "person_not_found"],
}));

export const listDevicesRoute = defineRoute("GET", "/devices", () => ({
  answer: deviceListSchema,
}));

export const revokeDeviceRoute = defineRoute("DELETE", "/devices/:device_id", () => ({
  params: z.object({ device_id: z.string().min(1).max(100) }).strict(),
  answer: deviceRevokedSchema,
  errors: ["device_not_found"],
}));
