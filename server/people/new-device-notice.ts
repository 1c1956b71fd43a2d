// The new-device notice (docs/people.md "New devices"): on a server with more than one person, when a device joins a
// person who already has live devices,
// those devices get an application notification meant for that person only ("New device: Pixel 8, paired 14:02 UTC"),
// pushed like any warning. The new device sees it too but may not dismiss it (notifications route), so a device added
// behind a person's back cannot hide its own arrival.
import type { FastifyBaseLogger } from "fastify";
import type { NotificationService } from "../notifications/notification-service.ts";
import { parseProducer, producerInputSchema } from "../notifications/input.ts";
import type { PairedDevice, PairingService } from "../pairing/pairing-service.ts";

export const NEW_DEVICE_KEY_PREFIX = "new_device:";

/** The notice's key names the device it is about. */
export function newDeviceKey(deviceId: string): string {
  return `${NEW_DEVICE_KEY_PREFIX}${deviceId}`;
}

export function announceNewDevices(
  pairing: PairingService,
  notifications: NotificationService,
  log: Pick<FastifyBaseLogger, "warn">,
  sharedServer: () => boolean,
): void {
  pairing.onPaired((device) => {
    try {
      announce(pairing, notifications, device, sharedServer);
    } catch (error) {
      // A notice that fails must not undo the pairing: the device list still shows the new device.
      log.warn({ err: error, device_id: device.device_id }, "new-device notice not published");
    }
  });
}

function announce(
  pairing: PairingService,
  notifications: NotificationService,
  device: PairedDevice,
  sharedServer: () => boolean,
): void {
  // A single-person install looks and works as before people existed: the notice starts with a second person.
  if (!sharedServer()) return;
  const devices = pairing.listDevices(device.person_id);
  const others = devices.filter((other) => other.revoked_at === null && other.device_id !== device.device_id);
  if (others.length === 0) return;
  // The pairing's own time, on the server's clock (HH:MM of its ISO string).
  const paired = devices.find((other) => other.device_id === device.device_id);
  if (paired === undefined) return;
  const time = paired.created_at.slice(11, 16);
  notifications.application.publish(
    parseProducer(producerInputSchema, {
      key: newDeviceKey(device.device_id),
      severity: "warning",
      title: `New device: ${device.name}`,
      body: `${device.name} was paired to your account at ${time} UTC. If it was not you, remove it in My devices.`,
      audience: [device.person_id],
    }),
    "people",
  );
}
