// Web Push routes (docs/push.md "Routes"). GET /push/key answers the VAPID public key a browser subscribes with; the
// others act for the calling device (a device token, directly or through the bridge's relay, which runs routes as
// the device): POST/DELETE /push/subscriptions store or remove one of its browser subscriptions, GET/PATCH
// /push/settings read or change whether its pushes carry text. Without `push` in the config every route answers 404.
// Contracts: client/wire/routes/push.ts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  changePushSettingsRoute,
  pushKeyRoute,
  pushSettingsRoute,
  subscribePushRoute,
  unsubscribePushRoute,
} from "../../../client/wire/routes/push.ts";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden, invalid, notFound } from "../../errors.ts";
import { endpointProblem } from "../../push/endpoint-policy.ts";
import { isP256Point } from "../../push/p256-point.ts";
import type { PushService } from "../../push/push-service.ts";
import { serveRoute } from "../serve-route.ts";

export function registerPushRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Push must be on, then the caller a device, before the body is read.
  const device = {
    before: (request: FastifyRequest) => {
      pushOf(ctx);
      deviceOf(request);
    },
  };

  serveRoute(app, pushKeyRoute, () => ({ public_key: pushOf(ctx).publicKey }));

  serveRoute(
    app,
    subscribePushRoute,
    ({ body: { endpoint, keys }, request }) => {
      const push = pushOf(ctx);
      if (!isP256Point(keys.p256dh)) {
        const message = "p256dh must be an uncompressed P-256 point on the curve";
        throw invalid("invalid_input", `body.keys.p256dh: ${message}`, [{ path: "body.keys.p256dh", message }]);
      }
      const problem = endpointProblem(endpoint, ctx.config.push!);
      if (problem)
        throw invalid("push_endpoint_not_allowed", `body.endpoint: ${problem}`, [
          { path: "body.endpoint", message: problem },
        ]);
      const most = ctx.config.push!.max_subscriptions_per_device;
      changeSubscriptions(push, request, (subscriptions, device_id) =>
        subscriptions.save({ endpoint, device_id, keys }, most),
      );
      return { endpoint };
    },
    device,
  );

  serveRoute(
    app,
    unsubscribePushRoute,
    ({ body: { endpoint }, request }) => {
      // Idempotent, and silent about endpoints of other devices.
      changeSubscriptions(pushOf(ctx), request, (subscriptions, deviceId) => subscriptions.remove(deviceId, endpoint));
    },
    device,
  );

  serveRoute(
    app,
    pushSettingsRoute,
    ({ request }) => ({ preview: pushOf(ctx).subscriptions.preview(deviceOf(request)) }),
    device,
  );

  serveRoute(
    app,
    changePushSettingsRoute,
    ({ body: { preview }, request }) => {
      changeSubscriptions(pushOf(ctx), request, (subscriptions, deviceId) =>
        subscriptions.setPreview(deviceId, preview),
      );
      return { preview };
    },
    device,
  );
}

function pushOf(ctx: ServerContext): PushService {
  // Push removed in Settings: the routes stop at once (the service itself ends at the next start).
  if (!ctx.push || !ctx.config.push)
    throw notFound("push_not_configured", "Web Push is not configured on this server (push.subject)");
  return ctx.push;
}

/** A change of the calling device's subscriptions, made through the service so it learns of it. */
function changeSubscriptions(
  push: PushService,
  request: FastifyRequest,
  change: (subscriptions: PushService["subscriptions"], deviceId: string) => void,
): void {
  const deviceId = deviceOf(request);
  push.changed(() => change(push.subscriptions, deviceId));
}

function deviceOf(request: FastifyRequest): string {
  const deviceId = deviceIdOf(request.caller);
  if (deviceId === undefined)
    throw forbidden("device_token_required", "push subscriptions belong to a paired device: use its token");
  return deviceId;
}
