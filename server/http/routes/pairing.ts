// Admin routes of pairing (docs/bridge.md "Pairing and devices"): POST /pairing creates a code,
// GET /devices lists devices (never token hashes), DELETE /devices/{device_id} revokes one here and, through the
// forwarder's grants push, on the bridge within the same second. Contracts: client/wire/routes/pairing.ts.
import type { FastifyInstance } from "fastify";
import { buildPairUrl } from "../../../client/wire/pair-url.ts";
import { createPairingRoute, listDevicesRoute, revokeDeviceRoute } from "../../../client/wire/routes/pairing.ts";
import type { ServerContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";
import { pairingUrls, type PairingUrls } from "../../pairing/urls.ts";

export function registerPairingRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
  urls: PairingUrls = pairingUrls(ctx),
): void {
  const pairing = ctx.pairing;

  serveRoute(app, createPairingRoute, ({ request }) => {
    const { code, expiresAt } = pairing.createCode();
    request.log.info({ expires_at: expiresAt }, "pairing code created");
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
    };
  });

  serveRoute(app, listDevicesRoute, () => {
    // A pairing the app refused after the server made its device (docs/security.md "Pairing") is settled first.
    pairing.revokeUnused();
    return { devices: pairing.listDevices() };
  });

  serveRoute(app, revokeDeviceRoute, ({ params: { device_id }, request }) => {
    if (!pairing.revoke(device_id)) throw notFound("device_not_found", `no device ${device_id}`);
    request.log.info({ device_id }, "device revoked");
    return { device: pairing.listDevices().find((device) => device.device_id === device_id)! };
  });
}
