// End-to-end encryption's device routes (docs/security.md):
// - GET /e2e/keys: the newest content keys, each sealed to the calling device's public key. A revoked device is
//   refused (401) like on every route, so it never gets a key made after its revocation.
// - POST /e2e/relay: a sealed relayed call (server/e2e/sealed-calls.ts), answered sealed. Through the bridge the
//   forwarder runs it without this route; the route serves the same call made over HTTP.
import type { FastifyInstance } from "fastify";
import { E2E_RELAY_PATH } from "../../../client/wire/e2e.ts";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden } from "../../errors.ts";
import { runSealedCall } from "../../e2e/sealed-calls.ts";
import { runRelayedCall } from "../../forwarder/api-relay.ts";

export function registerE2eRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get("/e2e/keys", async (request) => {
    const deviceId = deviceIdOf(request.caller);
    const publicKey = deviceId === undefined ? undefined : ctx.pairing.publicKeyOf(deviceId);
    if (deviceId === undefined || publicKey === undefined)
      throw forbidden("not_e2e_device", "this route is for devices paired with a public key");
    return { keys: ctx.e2e.keysFor(deviceId, publicKey) };
  });

  app.post(E2E_RELAY_PATH, async (request, reply) => {
    const answer = await runSealedCall(
      ctx,
      (call) => runRelayedCall(ctx, app, call),
      deviceIdOf(request.caller),
      request.body,
    );
    return reply.status(answer.status).send(answer.body);
  });
}
