// Admin routes of pairing (docs/bridge.md "Pairing and devices"): POST /pairing creates a code,
// GET /devices lists devices (never token hashes), DELETE /devices/{device_id} revokes one here and, through the
// forwarder's grants push, on the bridge within the same second.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { buildPairUrl } from "../../../client/wire/index.ts";
import type { ServerContext } from "../../context.ts";
import { requireAdmin } from "../auth.ts";
import { notFound } from "../../errors.ts";
import { parseInput } from "../validate.ts";
import { pairingUrls, type PairingUrls } from "../../pairing/urls.ts";

const pairingBody = z.object({}).strict().default({});
const deviceParams = z.object({ device_id: z.string().min(1).max(100) }).strict();

export function registerPairingRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
  urls: PairingUrls = pairingUrls(ctx),
): void {
  const pairing = ctx.pairing;

  app.post("/pairing", async (request, reply) => {
    requireAdmin(request);
    parseInput(pairingBody, request.body, "body");
    const { code, expiresAt } = pairing.createCode();
    request.log.info({ expires_at: expiresAt }, "pairing code created");
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
    });
  });

  app.get("/devices", async (request) => {
    requireAdmin(request);
    // A pairing the app refused after the server made its device (docs/security.md "Pairing") is settled first.
    pairing.revokeUnused();
    return { devices: pairing.listDevices() };
  });

  app.delete("/devices/:device_id", async (request) => {
    requireAdmin(request);
    const { device_id } = parseInput(deviceParams, request.params, "params");
    if (!pairing.revoke(device_id)) throw notFound("device_not_found", `no device ${device_id}`);
    request.log.info({ device_id }, "device revoked");
    return { device: pairing.listDevices().find((device) => device.device_id === device_id) };
  });
}
