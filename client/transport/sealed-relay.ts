// The API relay of an encrypting device (docs/security.md "Relay"): every `api` push is sealed to the server's key
// before it reaches the bridge. The call (method, path, body) goes inside, with a fresh random id and the time, as
// the body of an ordinary `api` push to POST /e2e/relay, so the bridge applies its size, rate and in-flight limits
// unchanged and learns only that this device made a call of this size. The server answers the route's status and
// body sealed to this device and bound to the call's id; this wrapper opens it and hands RelayApi exactly what an
// unsealed relay would have answered. A reply that does not open is a `protocol` failure, never a body.
import { loadCrypto, type CryptoModule } from "../wire/crypto/load.ts";
import { z } from "zod";
import { E2E_RELAY_PATH } from "../wire/e2e.ts";
import { relayAnswerSchema, relayErrorReasonSchema } from "../wire/frames.ts";
import type { Credentials } from "../connection/credentials.ts";
import type { Timers } from "../util/timers.ts";
import type { PushReply, RelayChannel } from "./relay.ts";

/** The sealed answer's shape. Its base64url is checked where it is decoded (strictly, wire/crypto/bytes.ts): a regex over
 *  the whole ciphertext here would walk it a second time. */
const sealedAnswerSchema = z.object({ nonce: z.string(), ciphertext: z.string() });

interface RelayKey {
  crypto: CryptoModule;
  key: Uint8Array;
}

export class SealedRelayChannel implements RelayChannel {
  private keyed: RelayKey | undefined;

  constructor(
    private readonly inner: RelayChannel,
    private readonly credentials: Pick<Credentials, "server_id" | "device_id">,
    private readonly e2e: NonNullable<Credentials["e2e"]>,
    private readonly timers: Timers,
  ) {}

  /** The relay key, derived once the crypto has loaded (on the first relayed call). */
  private async relayKey(): Promise<RelayKey> {
    if (this.keyed) return this.keyed;
    const crypto = await loadCrypto();
    const { device_secret_key, server_key } = this.e2e;
    const devicePublic = crypto.publicKeyOf(device_secret_key);
    this.keyed = { crypto, key: crypto.sharedKey(device_secret_key, server_key, "relay", server_key, devicePublic) };
    return this.keyed;
  }

  async push(event: string, payload: object, timeoutMs: number): Promise<PushReply> {
    if (event !== "api") return this.inner.push(event, payload, timeoutMs);
    const { crypto, key } = await this.relayKey();
    const { openResponse, randomBytes, sealRequest, toBase64Url, CryptoError } = crypto;
    const { server_id, device_id } = this.credentials;
    const id = toBase64Url(randomBytes(18));
    const call = JSON.stringify({ id, ts: Math.round(this.timers.now()), ...payload });
    const sealed = sealRequest(key, server_id, device_id, call);
    const reply = await this.inner.push("api", { method: "POST", path: E2E_RELAY_PATH, body: sealed }, timeoutMs);
    if (reply.status !== "ok") return reply;
    const outer = relayAnswerSchema.safeParse(reply.response);
    // The relay route itself refused (a 4xx in the documented error shape): RelayApi reports it as that response.
    if (!outer.success || outer.data.status !== 200) return reply;
    const body = sealedAnswerSchema.safeParse(outer.data.body);
    if (!body.success) return { status: "error", response: { reason: "protocol" } };
    try {
      const answer = JSON.parse(openResponse(key, server_id, device_id, id, body.data)) as unknown;
      // Only a refusal carries `reason` (a route's answer is {status, body}): no failing parse on every answer,
      // which costs zod an error object each time.
      if (answer === null || typeof answer !== "object" || !("reason" in answer))
        return { status: "ok", response: answer };
      const reason = relayErrorReasonSchema.safeParse(answer.reason);
      return { status: "error", response: { reason: reason.success ? reason.data : "protocol" } };
    } catch (error) {
      if (error instanceof CryptoError || error instanceof SyntaxError)
        return { status: "error", response: { reason: "protocol" } };
      throw error;
    }
  }
}
