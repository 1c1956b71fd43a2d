// Whether a subscription's p256dh is a point of P-256 (docs/push.md "Routes"). A 65-byte value off the curve was
// once stored, and every push to it then failed inside the server (its ECDH throws). Node's own OpenSSL decides, so
// the browsers' bundle carries no curve code for a check only the server needs.
import { ECDH } from "node:crypto";

/** True when base64url `p256dh` decodes to an uncompressed point on P-256. */
export function isP256Point(p256dh: string): boolean {
  try {
    ECDH.convertKey(Buffer.from(p256dh, "base64url"), "prime256v1", undefined, undefined, "uncompressed");
    return true;
  } catch {
    return false;
  }
}
