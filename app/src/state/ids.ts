// Ids the app makes up (client_request_id, attachment keys): the client library's generator, built on
// getRandomValues, since crypto.randomUUID does not exist on a plain http: LAN origin (docs/client.md).
import { randomId } from "../../../client/index.ts";

/** 128 random bits as hex, with a prefix saying what the id is for. */
export function newId(prefix: string): string {
  return randomId(`${prefix}_`);
}
