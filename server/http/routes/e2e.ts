// End-to-end encryption's device routes (docs/security.md):
// - GET /e2e/keys: the newest content keys, each sealed to the calling device's public key. A revoked device is
//   refused (401) like on every route, so it never gets a key made after its revocation.
// - POST /e2e/relay: a relayed call sealed by the device to this server's key. The bridge carries it as an ordinary
//   `api` push (POST of this path with the sealed body), so its size, rate and in-flight limits hold unchanged and it
//   sees neither the call nor the answer. The call runs in-process as that device (runRelayedCall, as any relayed
//   call) and the answer goes back sealed to the device, bound to the call's id. A call that does not open, is
//   stale, or was already run is refused, counted and logged, and never run.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { openRequest, sealResponse, CryptoError } from "../../../client/crypto/index.ts";
import { E2E_RELAY_PATH, innerRequestSchema, sealedSchema, type InnerRequest } from "../../../client/wire/e2e.ts";
import { relayPathSchema } from "../../../client/wire/frames.ts";
import type { ServerContext } from "../../context.ts";
import { conflict, forbidden, invalid } from "../../errors.ts";
import { runRelayedCall } from "../../forwarder/api-relay.ts";
import { ReplayGuard } from "../../e2e/replay-guard.ts";
import { parseInput } from "../validate.ts";

export function registerE2eRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const guard = new ReplayGuard(ctx.pairing.relayFloors);

  /** The calling device and its public key; the admin token and plain devices have none. */
  const e2eDevice = (request: FastifyRequest): { deviceId: string; publicKey: string } => {
    const principal = request.principal;
    const publicKey = principal?.kind === "device" ? ctx.pairing.publicKeyOf(principal.deviceId) : undefined;
    if (principal?.kind !== "device" || publicKey === undefined) throw forbidden("not_e2e_device", "this route is for devices paired with a public key");
    return { deviceId: principal.deviceId, publicKey };
  };

  app.get("/e2e/keys", async (request) => {
    const { deviceId, publicKey } = e2eDevice(request);
    return { keys: ctx.e2e.keysFor(deviceId, publicKey) };
  });

  app.post(E2E_RELAY_PATH, async (request) => {
    const { deviceId, publicKey } = e2eDevice(request);
    const sealed = parseInput(sealedSchema, request.body, "body");
    const key = ctx.e2e.relayKey(publicKey);
    const call = openCall(ctx, key, deviceId, sealed);
    const verdict = guard.check(deviceId, call.id, call.ts);
    if (verdict !== "fresh") {
      ctx.e2e.rejected(verdict === "replayed" ? "replayed" : "stale");
      request.log.warn({ device_id: deviceId, verdict }, "sealed relayed call refused");
      if (verdict === "replayed") throw conflict("sealed_request_replayed", "this sealed call was already run");
      throw invalid("sealed_request_invalid", "the sealed call is stale: older than the device's calls the server remembers");
    }
    const result = await runRelayedCall(ctx, app, { request_id: call.id, device_id: deviceId, method: call.method, path: call.path, ...(call.body === undefined ? {} : { body: call.body }) });
    const { request_id: _id, ...answer } = result ?? { request_id: call.id, reason: "invalid_request" as const };
    return sealResponse(key, ctx.serverId, deviceId, call.id, JSON.stringify(answer));
  });
}

/** The call inside a sealed body; a body that does not open or holds no valid call is refused (and counted). */
function openCall(ctx: ServerContext, key: Uint8Array, deviceId: string, sealed: { nonce: string; ciphertext: string }): InnerRequest {
  let call: InnerRequest | undefined;
  try {
    const parsed = innerRequestSchema.safeParse(JSON.parse(openRequest(key, ctx.serverId, deviceId, sealed)));
    // The inner path is checked like any relayed path; a sealed call may not wrap another one.
    if (parsed.success && relayPathSchema.safeParse(parsed.data.path).success && !parsed.data.path.startsWith(E2E_RELAY_PATH)) call = parsed.data;
  } catch (error) {
    if (!(error instanceof CryptoError) && !(error instanceof SyntaxError)) throw error;
  }
  if (call) return call;
  ctx.e2e.rejected("tampered");
  ctx.log.warn({ device_id: deviceId }, "sealed relayed call does not open or holds no valid call");
  throw invalid("sealed_request_invalid", "the sealed call does not open or holds no valid call");
}
