// Pairing and devices (docs/bridge.md "Pairing and devices", docs/people.md "Routes"): POST /pairing creates a code for
// a person, GET /devices lists a person's devices (never token hashes; everyone's for the admin role), DELETE
// /devices/{device_id} revokes one here and, through the forwarder's grants push, on the bridge within the same second.
// Contracts: client/wire/routes/pairing.ts.
import type { FastifyInstance } from "fastify";
import { buildPairUrl } from "../../../client/wire/pair-url.ts";
import { createPairingRoute, listDevicesRoute, revokeDeviceRoute } from "../../../client/wire/routes/pairing.ts";
import type { ServerContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute, requireAdminRole } from "../auth.ts";
import { actorOf } from "../../people/people-service.ts";
import { pairingUrls, type PairingUrls } from "../../pairing/urls.ts";

export function registerPairingRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
  urls: PairingUrls = pairingUrls(ctx),
): void {
  const pairing = ctx.pairing;

  // A code is for a person: the caller's own by default ("Add my tablet"); for someone else it needs the admin role,
  // and is audited (a device paired behind a person's back would read their chats).
  serveRoute(app, createPairingRoute, ({ request, body }) => {
    const caller = callerOfRoute(request);
    const personId = body.person_id ?? caller.person_id;
    if (personId !== caller.person_id) {
      requireAdminRole(request);
      ctx.people.require(personId);
      ctx.audit.record({ actor: actorOf(caller), action: "pairing_for_person", person_id: personId });
    }
    const { code, expiresAt } = pairing.createCode(personId);
    request.log.info({ expires_at: expiresAt, person_id: personId }, "pairing code created");
    return {
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
    };
  });

  // A person's own devices; the admin role sees (and may revoke) everyone's. Another person's device is "not found".
  serveRoute(app, listDevicesRoute, ({ request }) => {
    // A pairing the app refused after the server made its device (docs/security.md "Pairing") is settled first.
    pairing.revokeUnused();
    const caller = callerOfRoute(request);
    return { devices: pairing.listDevices(caller.role === "admin" ? undefined : caller.person_id) };
  });

  serveRoute(app, revokeDeviceRoute, ({ params: { device_id }, request }) => {
    const caller = callerOfRoute(request);
    const device = pairing.device(device_id);
    if (!device || (caller.role !== "admin" && device.person_id !== caller.person_id))
      throw notFound("device_not_found", `no device ${device_id}`);
    pairing.revoke(device_id);
    request.log.info({ device_id }, "device revoked");
    return { device: pairing.device(device_id)! };
  });
}
