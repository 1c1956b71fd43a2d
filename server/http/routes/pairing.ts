// Admin routes of pairing (docs/bridge.md "Pairing and devices"): POST /pairing creates a code,
// GET /devices lists devices (never token hashes), DELETE /devices/{device_id} revokes one here and, through the
// forwarder's grants push, on the bridge within the same second.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { buildPairUrl } from "../../../client/wire/index.ts";
import type { ServerContext } from "../../context.ts";
import { callerOfRoute, requireAdminRole } from "../auth.ts";
import { actorOf } from "../../people/people-service.ts";
import { notFound } from "../../errors.ts";
import { parseInput } from "../validate.ts";
import { pairingUrls, type PairingUrls } from "../../pairing/urls.ts";

const pairingBody = z
  .object({ person_id: z.string().min(1).max(100).optional() })
  .strict()
  .default({});
const deviceParams = z.object({ device_id: z.string().min(1).max(100) }).strict();

export function registerPairingRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
  urls: PairingUrls = pairingUrls(ctx),
): void {
  const pairing = ctx.pairing;

  // A code is for a person: the caller's own by default ("Add my tablet"); for someone else it needs the admin role,
  // and is audited (a device paired behind a person's back would read their chats).
  app.post("/pairing", async (request, reply) => {
    const caller = callerOfRoute(request);
    const body = parseInput(pairingBody, request.body, "body");
    const personId = body.person_id ?? caller.person_id;
    if (personId !== caller.person_id) {
      requireAdminRole(request);
      ctx.people.require(personId);
      ctx.audit.record({ actor: actorOf(caller), action: "pairing_for_person", person_id: personId });
    }
    const { code, expiresAt } = pairing.createCode(personId);
    request.log.info({ expires_at: expiresAt, person_id: personId }, "pairing code created");
    return reply.status(201).send({
      code,
      expires_at: new Date(expiresAt).toISOString(),
      server_id: ctx.serverId,
      bridge_url: urls.bridgeUrl,
      server_url: urls.serverUrl,
      // The app is served by this server at `/` (its URL is the server's public URL), and by the bridge: server.app_url
      // names the bridge's for phones that reach only the bridge, while server_url still names this server. `key`
      // lets the device prove the pairing answer came from this server, not from the bridge (docs/security.md).
      pair_url: buildPairUrl(urls.appUrl ?? urls.serverUrl, { code, bridge: urls.bridgeUrl, key: ctx.e2e.publicKey }),
      server_key: ctx.e2e.publicKey,
      fingerprint: ctx.e2e.fingerprint,
      person_id: personId,
    });
  });

  // A person's own devices; the admin role sees (and may revoke) everyone's. Another person's device is "not found".
  app.get("/devices", async (request) => {
    const caller = callerOfRoute(request);
    return { devices: pairing.listDevices(caller.role === "admin" ? undefined : caller.person_id) };
  });

  app.delete("/devices/:device_id", async (request) => {
    const caller = callerOfRoute(request);
    const { device_id } = parseInput(deviceParams, request.params, "params");
    const device = pairing.device(device_id);
    if (!device || (caller.role !== "admin" && device.person_id !== caller.person_id))
      throw notFound("device_not_found", `no device ${device_id}`);
    pairing.revoke(device_id);
    request.log.info({ device_id }, "device revoked");
    return { device: pairing.device(device_id) };
  });
}
