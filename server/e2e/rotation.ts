// When content keys rotate (docs/security.md "Keys per person"): a revoked device's person gets a new key, and so does
// everyone's scope (the device held the server-wide keys too); nobody else's changes.
import { EVERYONE } from "./content-keys.ts";
import type { EndToEnd } from "./end-to-end.ts";

export function rotateForRevocation(e2e: EndToEnd, deviceId: string): void {
  const person = e2e.audiences.personOfDevice(deviceId);
  if (person !== undefined) e2e.contentKeys.rotate(person);
  e2e.contentKeys.rotate(EVERYONE);
}
