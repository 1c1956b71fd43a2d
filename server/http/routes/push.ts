// Web Push routes (docs/push.md "Routes"). GET /push/key answers the VAPID public key a browser subscribes with; the
// others act for the calling device (a device token, directly or through the bridge's relay, which runs routes as
// the device): POST/DELETE /push/subscriptions store or remove one of its browser subscriptions, GET/PATCH
// /push/settings read or change whether its pushes carry text. Without `push` in the config every route answers 404.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden, invalid, notFound } from "../../errors.ts";
import { endpointProblem } from "../../push/endpoint-policy.ts";
import type { PushService } from "../../push/push-service.ts";
import { parseInput } from "../validate.ts";

/** base64url of exactly `bytes` bytes, no padding (what a browser's PushSubscription.toJSON() gives). */
const base64urlOf = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
    .refine((value) => Buffer.from(value, "base64url").length === bytes, `${what} must be ${bytes} bytes`);

/** A browser's PushSubscription as JSON; fields a browser adds later are ignored. */
const subscriptionBody = z.object({
  endpoint: z.string().min(1).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // An uncompressed P-256 point: 65 bytes, the first 0x04.
    p256dh: base64urlOf(65, "p256dh").refine(
      (value) => Buffer.from(value, "base64url")[0] === 4,
      "p256dh must be an uncompressed P-256 point",
    ),
    auth: base64urlOf(16, "auth"),
  }),
});
const endpointBody = z.object({ endpoint: z.string().min(1).max(2048) }).strict();
const settingsBody = z.object({ preview: z.boolean() }).strict();

export function registerPushRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get("/push/key", async () => ({ public_key: pushOf(ctx).publicKey }));

  app.post("/push/subscriptions", async (request, reply) => {
    const push = pushOf(ctx);
    const deviceId = deviceOf(request);
    const { endpoint, keys } = parseInput(subscriptionBody, request.body, "body");
    const problem = endpointProblem(endpoint, ctx.config.push!);
    if (problem)
      throw invalid("push_endpoint_not_allowed", `body.endpoint: ${problem}`, [
        { path: "body.endpoint", message: problem },
      ]);
    push.changed(() =>
      push.subscriptions.save({ endpoint, device_id: deviceId, keys }, ctx.config.push!.max_subscriptions_per_device),
    );
    return reply.status(201).send({ endpoint });
  });

  app.delete("/push/subscriptions", async (request, reply) => {
    const push = pushOf(ctx);
    const deviceId = deviceOf(request);
    const { endpoint } = parseInput(endpointBody, request.body, "body");
    // Idempotent, and silent about endpoints of other devices.
    push.changed(() => push.subscriptions.remove(deviceId, endpoint));
    return reply.status(204).send();
  });

  app.get("/push/settings", async (request) => {
    const push = pushOf(ctx);
    return { preview: push.subscriptions.preview(deviceOf(request)) };
  });

  app.patch("/push/settings", async (request) => {
    const push = pushOf(ctx);
    const deviceId = deviceOf(request);
    const { preview } = parseInput(settingsBody, request.body, "body");
    push.changed(() => push.subscriptions.setPreview(deviceId, preview));
    return { preview };
  });
}

function pushOf(ctx: ServerContext): PushService {
  // Push removed in Settings: the routes stop at once (the service itself ends at the next start).
  if (!ctx.push || !ctx.config.push)
    throw notFound("push_not_configured", "Web Push is not configured on this server (push.subject)");
  return ctx.push;
}

function deviceOf(request: FastifyRequest): string {
  const deviceId = deviceIdOf(request.caller);
  if (deviceId === undefined)
    throw forbidden("device_token_required", "push subscriptions belong to a paired device: use its token");
  return deviceId;
}
