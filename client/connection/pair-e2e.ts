// The end-to-end half of pairing (docs/security.md "Pairing"): the device's key pair, sent as `device_key`, and the
// check of the answer. The server seals the device's credentials under the key its secret and the device's key
// derive; the library opens them against the server key it trusts, pair_url's `key` when it has one, so a bridge that
// answers in the server's place (or swaps the server key) is refused. Pairing by typed code has no key to trust but
// the answer's: its fingerprint is what the person compares with `npm run pair` or the Devices screen.
import { CryptoError, generateKeyPair, openCredentials, sharedKey, type KeyPair } from "../wire/crypto/index.ts";
import { sealedCredentialsSchema } from "../wire/e2e.ts";
import { pairingSealedOkSchema } from "../wire/frames.ts";
import type { Credentials } from "./credentials.ts";

export type SealedAnswerFailure = "server_key_mismatch" | "protocol";

export class DeviceKeys {
  readonly pair: KeyPair = generateKeyPair();

  /** What the pairing join adds to its params. */
  get joinParams(): { device_key: string } {
    return { device_key: this.pair.publicKey };
  }

  /**
   * The credentials inside an ok reply, once it is proven to come from the trusted server key (`expectedKey`, or the
   * reply's own `server_key` when there is none to expect); a failure says why.
   */
  open(response: unknown, bridgeUrl: string, expectedKey: string | undefined): Credentials | SealedAnswerFailure {
    const reply = pairingSealedOkSchema.safeParse(response);
    if (!reply.success) return "protocol";
    const serverKey = expectedKey ?? reply.data.server_key;
    const { server_id, device_id } = reply.data;
    let inner: unknown;
    try {
      const key = sharedKey(this.pair.secretKey, serverKey, "pairing", serverKey, this.pair.publicKey);
      inner = JSON.parse(openCredentials(key, server_id, device_id, reply.data.sealed));
    } catch (error) {
      if (error instanceof CryptoError) return "server_key_mismatch";
      return "protocol";
    }
    const credentials = sealedCredentialsSchema.safeParse(inner);
    if (!credentials.success || credentials.data.server_id !== server_id || credentials.data.device_id !== device_id)
      return "protocol";
    return {
      bridge_url: bridgeUrl,
      ...credentials.data,
      e2e: { device_secret_key: this.pair.secretKey, server_key: serverKey },
    };
  }
}
