// What each sealed thing is bound to. The associated data names the purpose and every id the ciphertext belongs
// to, so a ciphertext moved to another server, event, key, device or request does not open.
import { open, seal, type Sealed } from "./aead.ts";
import { fromUtf8, utf8 } from "./bytes.ts";
import { openBox, sealTo, type SealedBox } from "./sealed-box.ts";

function aad(...parts: Array<string | number>): Uint8Array {
  return utf8(parts.join("\0"));
}

export interface EventEnvelope extends Sealed {
  event_id: string;
  key_id: number;
}

/** Seals an event's JSON under the content key `keyId`, bound to the server and the event id. */
export function sealEvent(
  key: Uint8Array,
  keyId: number,
  serverId: string,
  eventId: string,
  eventJson: string,
): EventEnvelope {
  return { event_id: eventId, key_id: keyId, ...seal(key, utf8(eventJson), aad("event", serverId, eventId, keyId)) };
}

/** The event's JSON text; throws CryptoError when it was altered, moved or made under another key. */
export function openEvent(key: Uint8Array, serverId: string, envelope: EventEnvelope): string {
  return fromUtf8(open(key, envelope, aad("event", serverId, envelope.event_id, envelope.key_id)));
}

/** A content key sealed to one device's public key. */
export function sealContentKey(
  devicePublic: string,
  serverId: string,
  deviceId: string,
  keyId: number,
  key: Uint8Array,
): SealedBox {
  return sealTo(devicePublic, key, aad("content key", serverId, deviceId, keyId));
}

export function openContentKey(
  deviceSecret: string,
  serverId: string,
  deviceId: string,
  keyId: number,
  box: SealedBox,
): Uint8Array {
  return openBox(deviceSecret, box, aad("content key", serverId, deviceId, keyId));
}

/** The pairing answer's credentials, under the key only the QR's server key and the device's key derive. */
export function sealCredentials(key: Uint8Array, serverId: string, deviceId: string, json: string): Sealed {
  return seal(key, utf8(json), aad("pairing", serverId, deviceId));
}

export function openCredentials(key: Uint8Array, serverId: string, deviceId: string, sealed: Sealed): string {
  return fromUtf8(open(key, sealed, aad("pairing", serverId, deviceId)));
}

/** A relayed request, device → server, under their static relay key. */
export function sealRequest(key: Uint8Array, serverId: string, deviceId: string, json: string): Sealed {
  return seal(key, utf8(json), aad("relay request", serverId, deviceId));
}

export function openRequest(key: Uint8Array, serverId: string, deviceId: string, sealed: Sealed): string {
  return fromUtf8(open(key, sealed, aad("relay request", serverId, deviceId)));
}

/** The answer to the relayed request `requestId`, server → device: bound to that request, so none can be swapped. */
export function sealResponse(
  key: Uint8Array,
  serverId: string,
  deviceId: string,
  requestId: string,
  json: string,
): Sealed {
  return seal(key, utf8(json), aad("relay response", serverId, deviceId, requestId));
}

export function openResponse(
  key: Uint8Array,
  serverId: string,
  deviceId: string,
  requestId: string,
  sealed: Sealed,
): string {
  return fromUtf8(open(key, sealed, aad("relay response", serverId, deviceId, requestId)));
}

/** A share link's snapshot, under the link's own random key, bound to its token (docs/people.md "Share links"). */
export function sealShareSnapshot(key: Uint8Array, token: string, json: string): Sealed {
  return seal(key, utf8(json), aad("share link", token));
}

/** The snapshot's JSON text; throws CryptoError when the blob is not this link's or the key is wrong. */
export function openShareSnapshot(key: Uint8Array, token: string, sealed: Sealed): string {
  return fromUtf8(open(key, sealed, aad("share link", token)));
}
