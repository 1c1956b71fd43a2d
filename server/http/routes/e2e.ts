// End-to-end encryption's device routes (docs/security.md; contracts in client/wire/routes/e2e.ts):
// - GET /e2e/keys: the newest content keys, each sealed to the calling device's public key. A revoked device is
//   refused (401) like on every route, so it never gets a key made after its revocation.
// - POST /e2e/relay: a sealed relayed call (server/e2e/sealed-calls.ts), answered sealed. Through the bridge the
//   forwarder runs it without this route; the route serves the same call made over HTTP.
import type { FastifyInstance } from "fastify";
import { contentKeysRoute, sealedCallRoute } from "../../../client/wire/routes/e2e.ts";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden } from "../../errors.ts";
import { runSealedCall } from "../../e2e/sealed-calls.ts";
import { runCheckedCall } from "../../forwarder/api-relay.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

export function registerE2eRoutes(app: FastifyInstance, ctx: ServerContext): void {
  serveRoute(app, contentKeysRoute, ({ request }) => {
    const deviceId = deviceIdOf(request.caller);
    const publicKey = deviceId === undefined ? undefined : ctx.pairing.publicKeyOf(deviceId);
    if (deviceId === undefined || publicKey === undefined)
      throw forbidden("not_e2e_device", "this route is for devices paired with a public key");
    // The device's person's keys and the server-wide ones (docs/security.md "Keys and their lifecycle").
    return { keys: ctx.e2e.keysFor(deviceId, publicKey, callerOfRoute(request).person_id) };
  });

  serveRoute(app, sealedCallRoute, async ({ request, reply }) => {
    const answer = await runSealedCall(
      ctx,
      (call) => runCheckedCall(ctx, app, call),
      deviceIdOf(request.caller),
      request.body,
    );
    return reply.status(answer.status).send(answer.body);
  });
}
