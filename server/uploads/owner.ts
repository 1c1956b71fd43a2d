// Whose an upload in parts is (docs/uploads.md): taken from the caller in this one function, so a person's upload is
// only theirs. A caller with a person (once people exist) owns by person, so any of that person's devices may finish
// what another began; until then each device owns its own, and the admin token its own.
import type { Caller } from "../auth/caller.ts";

export function uploadOwnerOf(caller: Caller | undefined): string {
  if (caller?.person_id !== undefined) return `person:${caller.person_id}`;
  switch (caller?.kind) {
    case "device":
      return `device:${caller.device_id}`;
    case "producer":
      return `producer:${caller.producer_id}`;
    case "admin":
      return "admin";
    default:
      return "nobody";
  }
}
