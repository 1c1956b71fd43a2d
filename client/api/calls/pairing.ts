// The typed calls of the pairing routes (client/wire/routes/pairing.ts, docs/people.md "Routes"): a device pairs,
// lists and revokes its own person's devices; an admin person's device everyone's.
import type { DeviceRecord, PairingCreated } from "../../wire/api.ts";
import { createPairingRoute, listDevicesRoute, revokeDeviceRoute } from "../../wire/routes/pairing.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class PairingCalls extends RouteCaller {
  /** A pairing code for the caller's person, or (admin role, audited) for `person_id`. */
  createPairing(options: { person_id?: string } = {}): Promise<PairingCreated> {
    return this.call(createPairingRoute, { body: options });
  }

  /** The caller's person's devices (every person's for the admin role), each with `person_id`. */
  async listDevices(): Promise<DeviceRecord[]> {
    return (await this.call(listDevicesRoute, {})).devices;
  }

  /** Revokes one of its person's devices (any, for the admin role), here and on the bridge at once. */
  async revokeDevice(deviceId: string): Promise<DeviceRecord> {
    return (await this.call(revokeDeviceRoute, { params: { device_id: deviceId } })).device;
  }
}
