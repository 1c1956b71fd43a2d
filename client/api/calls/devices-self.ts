// The typed calls of the device's own record (client/wire/routes/devices-self.ts).
import type { DeviceRecord } from "../../wire/api.ts";
import { renameSelfDeviceRoute, selfDeviceRoute, unpairSelfDeviceRoute } from "../../wire/routes/devices-self.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class SelfDeviceCalls extends RouteCaller {
  /** This device's own record (a device token; the admin token has no device). */
  async getSelfDevice(): Promise<DeviceRecord> {
    return (await this.call(selfDeviceRoute, {})).device;
  }

  async renameSelfDevice(name: string): Promise<DeviceRecord> {
    return (await this.call(renameSelfDeviceRoute, { body: { name } })).device;
  }

  /** Revokes this device on the server (its token stops working at once); then forget the credentials. */
  async unpairSelfDevice(): Promise<DeviceRecord> {
    return (await this.call(unpairSelfDeviceRoute, { body: undefined })).device;
  }
}
