// A device acting on itself (docs/sessions.md "This device"): read its record, rename it, revoke it (unpair). Only a
// device token names a device: the admin token is refused with device_token_required.
import { z } from "zod";
import { deviceRevokedSchema } from "../api.ts";
import { defineRoute } from "./route.ts";

const errors = ["device_token_required", "device_not_found"] as const;

export const selfDeviceRoute = defineRoute("GET", "/devices/self", () => ({
  answer: deviceRevokedSchema,
  errors,
}));

export const renameSelfDeviceRoute = defineRoute("PATCH", "/devices/self", () => ({
  /** The same bounds a device name has when it pairs (client/wire/frames.ts). */
  body: z.object({ name: z.string().trim().min(1).max(100) }).strict(),
  answer: deviceRevokedSchema,
  errors,
}));

export const unpairSelfDeviceRoute = defineRoute("DELETE", "/devices/self", () => ({
  body: z.object({}).strict().optional(),
  answer: deviceRevokedSchema,
  errors,
}));
