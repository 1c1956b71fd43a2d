// Bearer auth on every route but GET /health (docs/server.md "HTTP auth"); admin-only routes call requireAdmin.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator, Principal } from "../auth/authenticator.ts";
import { producerMayCall } from "../auth/producer-scope.ts";
import { forbidden } from "../errors.ts";
import { unauthorized } from "./errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

const PUBLIC_ROUTES = ["GET /health", "OPTIONS *"];

/**
 * `onDeviceSeen` hears of every request a device token makes (the device list's last_seen_at). Open without a
 * token: /health, preflights, and the app's files (routes app-files.ts marks `appFile`). The match is on the route a
 * request was routed to, never on its path, so no spelling of an API path slips by.
 */
export function installAuth(
  app: FastifyInstance,
  auth: Authenticator,
  onDeviceSeen: (deviceId: string) => void = () => {},
): void {
  const open = new Set(PUBLIC_ROUTES);
  app.decorateRequest("principal", undefined);
  app.addHook("onRequest", async (request) => {
    const config = request.routeOptions.config;
    if (config.appFile === true || config.contract?.open === true) return;
    if (open.has(`${request.method} ${request.routeOptions.url}`)) return;
    const principal = auth.identify(request.headers.authorization);
    if (!principal) throw unauthorized();
    if (principal.kind === "producer" && !producerMayCall(request.method, request.routeOptions.url)) {
      throw forbidden("producer_not_allowed", "a producer token may only publish and resolve notifications");
    }
    request.principal = principal;
    if (principal.kind === "device") onDeviceSeen(principal.deviceId);
  });
}

export function requireAdmin(request: FastifyRequest): void {
  if (request.principal?.kind !== "admin") throw forbidden("forbidden", "this route needs the admin token");
}
