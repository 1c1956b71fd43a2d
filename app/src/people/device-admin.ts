// What the Devices and People screens ask of a client: pairing codes (for a person), the device list, revoking. The
// paired device's ChatClient answers them for its person (everyone for the admin role) and the AdminClient of the
// admin token for everyone, so the screens take either.
import type { DeviceRecord, PairingCreated } from "../../../client/index.ts";

export interface DeviceAdmin {
  createPairing(options?: { person_id?: string }): Promise<PairingCreated>;
  listDevices(): Promise<DeviceRecord[]>;
  revokeDevice(deviceId: string): Promise<DeviceRecord>;
}
