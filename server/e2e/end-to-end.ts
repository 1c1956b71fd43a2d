// The server's end of end-to-end encryption (docs/security.md): its key pair, the content keys, and every seal the
// server makes: each event once (for all encrypting devices), the content keys to each device, the pairing answer,
// and the relay keys it shares with each device.
import {
  fingerprint,
  sealContentKey,
  sealCredentials,
  sealEvent,
  sharedKey,
  type EventEnvelope,
  type KeyPair,
  type Sealed,
  useCipher,
  useRandom,
} from "../../client/wire/crypto/index.ts";
import type { SealedContentKey } from "../../client/wire/e2e.ts";
import type { Audiences } from "./audiences.ts";
import { EVERYONE, type ContentKeys } from "./content-keys.ts";
import type { ReplayGuard } from "./replay-guard.ts";

// The server opens and seals every encrypting device's relayed calls and seals every event: here the crypto's cost is
// the server's, and both seams' optimisations measurably pay (docs/benchmarks.md "Sealed relay"): OpenSSL's cipher
// (noble stays wherever Node's is missing or disagrees with it: xchacha.ts checks) and nonces cut from a pool of the
// platform's random bytes (Node 20 spends microseconds of setup on every getRandomValues call).
useCipher("openssl");
useRandom("pooled");

/** Relay keys kept per device public key; a handful of devices use them, the bound only caps a flood of keys. */
const RELAY_KEYS_CACHED = 1000;

export class EndToEnd {
  readonly fingerprint: string;
  /** Sealed input refused, by why (a figure for logs and tests: the server has no /metrics). */
  readonly rejections = { tampered: 0, replayed: 0, stale: 0 };
  private readonly relayKeys = new Map<string, Uint8Array>();

  constructor(
    readonly serverId: string,
    private readonly keyPair: KeyPair,
    readonly contentKeys: ContentKeys,
    /** Who each event is for, and each person's tag (audiences.ts). */
    readonly audiences: Audiences,
    /** Sealed relayed calls already run, per device (replays are refused). */
    readonly calls: ReplayGuard,
    /** The config's bridge.require_e2e: pairing without a device key is refused. */
    readonly requireE2e: boolean,
  ) {
    this.fingerprint = fingerprint(keyPair.publicKey);
  }

  rejected(why: keyof EndToEnd["rejections"]): void {
    this.rejections[why]++;
  }

  get publicKey(): string {
    return this.keyPair.publicKey;
  }

  /**
   * Seals one event's JSON under the current content key of `scope` (a person's, or EVERYONE's): once per scope,
   * whatever the number of devices.
   */
  sealEvent(scope: string, eventId: string, eventJson: string): EventEnvelope {
    const { keyId, key } = this.contentKeys.current(scope);
    return sealEvent(key, keyId, this.serverId, eventId, eventJson);
  }

  /**
   * The newest content keys of the device's person and the newest server-wide ones, each sealed to the device's
   * public key (bound to this server and that device). No other person's key is ever given.
   */
  keysFor(deviceId: string, devicePublic: string, personId: string | undefined): SealedContentKey[] {
    const own = personId === undefined ? [] : this.contentKeys.recentKeys(personId);
    return [...own, ...this.contentKeys.recentKeys(EVERYONE)].map(({ keyId, key }) => ({
      key_id: keyId,
      box: sealContentKey(devicePublic, this.serverId, deviceId, keyId, key),
    }));
  }

  /**
   * The pairing answer's proof: the new device's credentials sealed under the key this server's secret and the
   * device's key derive. Only the holder of the QR's server key can make it; the bridge can neither forge nor read it.
   */
  sealPairing(devicePublic: string, deviceId: string, credentialsJson: string): Sealed {
    const key = sharedKey(this.keyPair.secretKey, devicePublic, "pairing", this.keyPair.publicKey, devicePublic);
    return sealCredentials(key, this.serverId, deviceId, credentialsJson);
  }

  /** The key relayed calls to and from this device are sealed with (static-static X25519, HKDF). */
  relayKey(devicePublic: string): Uint8Array {
    let key = this.relayKeys.get(devicePublic);
    if (key) return key;
    key = sharedKey(this.keyPair.secretKey, devicePublic, "relay", this.keyPair.publicKey, devicePublic);
    if (this.relayKeys.size >= RELAY_KEYS_CACHED) this.relayKeys.delete(this.relayKeys.keys().next().value!);
    this.relayKeys.set(devicePublic, key);
    return key;
  }
}
