// A device acting on itself (docs/sessions.md "This device"): GET /devices/self reads the calling device's record,
// PATCH /devices/self {name} renames it, DELETE /devices/self revokes it, here and on the bridge (the same revocation
// as the admin's DELETE /devices/{id}), so "Unpair this device" really unpairs. Only a device token names a device: the admin token is refused with 403.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden, notFound } from "../../errors.ts";
import { parseInput } from "../validate.ts";

/** The same bounds a device name has when it pairs (client/wire/frames.ts). */
const renameBody = z.object({ name: z.string().trim().min(1).max(100) }).strict();
const emptyBody = z.object({}).strict().optional();

export function registerDeviceSelfRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { pairing } = ctx;

  // What the device's settings screen shows (its name, mode, when it paired); GET /devices stays the admin's.
  app.get("/devices/self", async (request) => {
    const deviceId = callingDevice(request);
    const device = pairing.device(deviceId);
    if (!device) throw notFound("device_not_found", `no device ${deviceId}`);
    return { device };
  });

  app.patch("/devices/self", async (request) => {
    const deviceId = callingDevice(request);
    const { name } = parseInput(renameBody, request.body, "body");
    if (!pairing.rename(deviceId, name)) throw notFound("device_not_found", `no device ${deviceId}`);
    return { device: pairing.device(deviceId) };
  });

  app.delete("/devices/self", async (request) => {
    const deviceId = callingDevice(request);
    parseInput(emptyBody, request.body, "body");
    if (!pairing.revoke(deviceId)) throw notFound("device_not_found", `no device ${deviceId}`);
    request.log.info({ device_id: deviceId }, "device unpaired itself");
    return { device: pairing.device(deviceId) };
  });
}

function callingDevice(request: FastifyRequest): string {
  const deviceId = deviceIdOf(request.caller);
  if (deviceId === undefined)
    throw forbidden("device_token_required", "this route acts on the calling device; call it with a device token");
  return deviceId;
}
