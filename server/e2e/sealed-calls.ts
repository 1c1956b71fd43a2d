// A relayed call an encrypting device sealed to this server's key (docs/security.md "Relay"). The bridge carries it
// as an ordinary `api` push (POST /e2e/relay with the sealed body), so its size, rate and in-flight limits hold
// unchanged and it sees neither the call nor the answer. The forwarder runs it here straight from `api_request`
// (api-relay.ts), and the route of the same path runs it for a call made over HTTP: the call is opened, checked
// against replays, run in-process as that device like any relayed call, and answered sealed to the device, bound to
// the call's id. A call that does not open, holds no valid call, is stale or was already run is refused (the
// documented error body), counted and logged, and never run.
import { CryptoError, openRequest, sealResponse, type Sealed } from "../../client/wire/crypto/index.ts";
import { E2E_RELAY_PATH, innerRequestSchema, sealedSchema, type InnerRequest } from "../../client/wire/e2e.ts";
import type { HttpErrorCode } from "../../client/wire/errors.ts";
import { RELAY_MAX_BODY_BYTES, relayPathSchema, type ApiRequest, type ApiResult } from "../../client/wire/frames.ts";
import type { ServerContext } from "../context.ts";
import { errorBody } from "../http/errors.ts";
import { JsonText, withJsonBody } from "../forwarder/json-text.ts";
import { statusOf } from "../../client/wire/errors.ts";

/** The sealed answer's fields around its ciphertext (`{"nonce": ..., "ciphertext": ...}`). */
const SEALED_ENVELOPE_BYTES = 100;

export interface SealedCallAnswer {
  status: number;
  body: unknown;
}

const refusal = (code: HttpErrorCode, message: string): SealedCallAnswer => ({
  status: statusOf(code),
  body: errorBody(code, message),
});

/**
 * Runs an opened call in-process as the device (the forwarder's runCheckedCall, handed in: the forwarder calls this
 * too). The call was checked as it was opened (openCall: the inner call's schema and the relayed path's), once.
 */
export type RunCall = (call: ApiRequest) => Promise<ApiResult>;

export async function runSealedCall(
  ctx: ServerContext,
  run: RunCall,
  deviceId: string | undefined,
  body: unknown,
): Promise<SealedCallAnswer> {
  const publicKey = deviceId === undefined ? undefined : ctx.pairing.publicKeyOf(deviceId);
  if (deviceId === undefined || publicKey === undefined)
    return refusal("not_e2e_device", "this route is for devices paired with a public key");
  const sealed = sealedSchema.safeParse(body);
  if (!sealed.success) return refusal("sealed_request_invalid", "the body is not {nonce, ciphertext}");
  const key = ctx.e2e.relayKey(publicKey);
  const call = openCall(ctx, key, deviceId, sealed.data);
  if (!call) {
    ctx.e2e.rejected("tampered");
    ctx.log.warn({ device_id: deviceId }, "sealed relayed call does not open or holds no valid call");
    return refusal("sealed_request_invalid", "the sealed call does not open or holds no valid call");
  }
  const verdict = ctx.e2e.calls.check(deviceId, call.id, call.ts);
  if (verdict !== "fresh") {
    ctx.e2e.rejected(verdict);
    ctx.log.warn({ device_id: deviceId, verdict }, "sealed relayed call refused");
    if (verdict === "replayed") return refusal("sealed_request_replayed", "this sealed call was already run");
    return refusal(
      "sealed_request_invalid",
      "the sealed call is stale: older than the device's calls the server remembers",
    );
  }
  // The device's new floor is on disk before the call runs, so a restart cannot make it runnable again.
  await ctx.e2e.calls.persisted();
  const { method, path, body: callBody } = call;
  const result = await run({
    request_id: call.id,
    device_id: deviceId,
    method,
    path,
    ...(callBody === undefined ? {} : { body: callBody }),
  });
  const { request_id: _id, ...answer } = result;
  const sealedAnswer = sealResponse(key, ctx.serverId, deviceId, call.id, withJsonBody(answer));
  // Sealing grows the answer by a third (base64): one that fit in clear may not fit in a bridge frame any more, and
  // sent whole it would make the bridge close the server's socket (1009).
  if (sealedAnswer.ciphertext.length + SEALED_ENVELOPE_BYTES <= RELAY_MAX_BODY_BYTES)
    return { status: 200, body: new SealedJson(sealedAnswer) };
  ctx.log.warn(
    { device_id: deviceId, bytes: sealedAnswer.ciphertext.length },
    "sealed relayed answer too large for a bridge frame",
  );
  return {
    status: 200,
    body: new SealedJson(sealResponse(key, ctx.serverId, deviceId, call.id, JSON.stringify({ reason: "too_large" }))),
  };
}

/**
 * A sealed answer as JSON text, spliced into the `api_result` frame as is (json-text.ts): base64url needs no escaping,
 * so the text is put together directly instead of JSON.stringify walking the whole ciphertext for characters to
 * escape (about as long as sealing it, on Node 20). Served over HTTP, it serializes as the object it stands for.
 */
export class SealedJson extends JsonText {
  constructor(readonly sealed: Sealed) {
    super(`{"nonce":"${sealed.nonce}","ciphertext":"${sealed.ciphertext}"}`);
  }

  toJSON(): Sealed {
    return this.sealed;
  }
}

/** The call inside a sealed body; undefined when it does not open or holds no valid call. */
function openCall(
  ctx: ServerContext,
  key: Uint8Array,
  deviceId: string,
  sealed: { nonce: string; ciphertext: string },
): InnerRequest | undefined {
  try {
    const parsed = innerRequestSchema.safeParse(JSON.parse(openRequest(key, ctx.serverId, deviceId, sealed)));
    // The inner path is checked like any relayed path; a sealed call may not wrap another one.
    if (
      parsed.success &&
      relayPathSchema.safeParse(parsed.data.path).success &&
      !parsed.data.path.startsWith(E2E_RELAY_PATH)
    )
      return parsed.data;
  } catch (error) {
    if (!(error instanceof CryptoError) && !(error instanceof SyntaxError)) throw error;
  }
  return undefined;
}
