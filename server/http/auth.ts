// Bearer auth on every route but the open ones (docs/server.md "HTTP auth"); admin-only routes call requireAdmin.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Caller } from "../auth/caller.ts";
import { producerMayCall } from "../auth/producer-scope.ts";
import { forbidden } from "../errors.ts";
import { unauthorized } from "./errors.ts";
import { relayPassOf } from "./in-process-request.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Who is calling (server/auth/caller.ts); undefined only on the open routes. */
    caller: Caller | undefined;
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
  app.decorateRequest("caller", undefined);
  app.addHook("onRequest", async (request) => {
    const config = request.routeOptions.config;
    if (config.appFile === true || config.contract?.open === true) return;
    if (open.has(`${request.method} ${request.routeOptions.url}`)) return;
    const caller = authenticateRequest(auth, request);
    if (!caller) throw unauthorized();
    if (caller.kind === "producer" && !producerMayCall(request.method, request.routeOptions.url)) {
      throw forbidden("producer_not_allowed", "a producer token may only publish and resolve notifications");
    }
    request.caller = caller;
    if (caller.kind === "device") onDeviceSeen(caller.device_id);
  });
}

/** The caller a request proves now: its relay pass (a call the bridge relayed) or its bearer token. */
export function authenticateRequest(auth: Authenticator, request: FastifyRequest): Caller | undefined {
  return auth.authenticate({ authorization: request.headers.authorization, relayed: relayPassOf(request.raw) });
}

export function requireAdmin(request: FastifyRequest): void {
  if (request.caller?.kind !== "admin") throw forbidden("forbidden", "this route needs the admin token");
}

/** The caller of a route that needs a token (every route but the open ones has one once auth has run). */
export function callerOfRoute(request: FastifyRequest): Caller {
  if (request.caller === undefined) throw unauthorized();
  return request.caller;
}

/** Routes of the admin role: an admin person's device, or the admin token (which acts as the oldest live admin). */
export function requireAdminRole(request: FastifyRequest): Caller {
  const caller = callerOfRoute(request);
  if (caller.role !== "admin" || caller.kind === "producer")
    throw forbidden("admin_required", "this needs the admin role (an admin person's device or the admin token)");
  return caller;
}
