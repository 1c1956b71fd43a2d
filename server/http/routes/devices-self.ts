// A device acting on itself (docs/sessions.md "This device"): GET /devices/self reads the calling device's record,
// PATCH /devices/self {name} renames it, DELETE /devices/self revokes it, here and on the bridge (the same revocation
// as the admin's DELETE /devices/{id}), so "Unpair this device" really unpairs. Only a device token names a device: the admin token is refused with 403, before the body is read. Contracts:
// client/wire/routes/devices-self.ts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  renameSelfDeviceRoute,
  selfDeviceRoute,
  unpairSelfDeviceRoute,
} from "../../../client/wire/routes/devices-self.ts";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden, notFound } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";

export function registerDeviceSelfRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { pairing } = ctx;
  const device = { before: callingDevice };

  // What the device's settings screen shows (its name, mode, when it paired); GET /devices stays the admin's.
  serveRoute(
    app,
    selfDeviceRoute,
    ({ request }) => {
      const deviceId = callingDevice(request);
      const record = pairing.device(deviceId);
      if (!record) throw notFound("device_not_found", `no device ${deviceId}`);
      return { device: record };
    },
    device,
  );

  serveRoute(
    app,
    renameSelfDeviceRoute,
    ({ body, request }) => {
      const deviceId = callingDevice(request);
      if (!pairing.rename(deviceId, body.name)) throw notFound("device_not_found", `no device ${deviceId}`);
      return { device: pairing.device(deviceId)! };
    },
    device,
  );

  serveRoute(
    app,
    unpairSelfDeviceRoute,
    ({ request }) => {
      const deviceId = callingDevice(request);
      if (!pairing.revoke(deviceId)) throw notFound("device_not_found", `no device ${deviceId}`);
      request.log.info({ device_id: deviceId }, "device unpaired itself");
      return { device: pairing.device(deviceId)! };
    },
    device,
  );
}

function callingDevice(request: FastifyRequest): string {
  const deviceId = deviceIdOf(request.caller);
  if (deviceId === undefined)
    throw forbidden("device_token_required", "this route acts on the calling device; call it with a device token");
  return deviceId;
}
