// When content keys rotate (docs/security.md "Keys and their lifecycle"): a revoked device's person gets a new key, and so does
// everyone's scope (the device held the server-wide keys too); nobody else's changes. A deleted chat's people each
// get a new key, their older ones withheld from later fetches; nobody else's changes.
import { EVERYONE } from "./content-keys.ts";
import type { EndToEnd } from "./end-to-end.ts";

export function rotateForRevocation(e2e: EndToEnd, deviceId: string): void {
  const person = e2e.audiences.personOfDevice(deviceId);
  if (person !== undefined) e2e.contentKeys.rotate(person);
  e2e.contentKeys.rotate(EVERYONE);
}

/** Before a chat's rows go: who it was for (its owner and shares), read now, rotated once it is deleted. */
export function rotationForDeletedChat(e2e: EndToEnd, sessionId: string): () => void {
  const people = e2e.audiences.peopleOfChat(sessionId);
  return () => {
    for (const person of people) e2e.contentKeys.rotateForDeletion(person);
  };
}
