// The registry's records in Redis (the cluster's counterpart of servers.json): credential hashes in one hash
// (trust on first use is an HSETNX, so two nodes registering one id at once agree on its first credential), each
// server's device grants and pairing codes in hashes of their own. A write is followed by a message on the control
// channel naming the server; every other node reloads that record (bridge/cluster/cluster-node.ts, `reload`), which is how a
// revocation reaches sockets on every node. Registry writes are rare (registrations, grants, codes), never per event.
import type { Redis } from "ioredis";
import { z } from "zod";
import { appConfigSchema } from "../../client/wire/app-config.ts";
import { audienceTagSchema } from "../../client/wire/audience.ts";
import { deviceModeSchema } from "../../client/wire/e2e.ts";
import type { DeviceGrant } from "../../client/wire/frames.ts";
import type { ServerRecord } from "../state/durable-store.ts";
import type { DurableState, RegistryChange, RegistryStore } from "../state/durable-store.ts";
import type { NodeRedis } from "./keys.ts";

/**
 * A device grant's value in its server's hash: `[device_id]`, or `[device_id, "e2e"]` for an encrypting device (as
 * versions before audiences wrote them), or `[device_id, mode, audience tag]`.
 */
const grantValueSchema = z.union([
  z.tuple([z.string().min(1)]),
  z.tuple([z.string().min(1), z.literal("e2e")]),
  z.tuple([z.string().min(1), deviceModeSchema, audienceTagSchema]),
]);

function grantValue(grant: DeviceGrant): string {
  if (grant.audience !== undefined) return JSON.stringify([grant.device_id, grant.mode ?? "plain", grant.audience]);
  return JSON.stringify(grant.mode === "e2e" ? [grant.device_id, "e2e"] : [grant.device_id]);
}

/** A stored grant, or none when the value is not one this version wrote (dropped, never thrown). */
function grantFrom(tokenHash: string, value: string): DeviceGrant[] {
  const parsed = parseJson(value);
  const grant = grantValueSchema.safeParse(parsed);
  if (!grant.success) return [];
  const [deviceId, mode, audience] = grant.data;
  return [
    {
      token_hash: tokenHash,
      device_id: deviceId,
      ...(mode === undefined ? {} : { mode }),
      ...(audience === undefined ? {} : { audience }),
    },
  ];
}

/** The control channel's one message: a server's record changed on `node`. */
export const controlMessageSchema = z.object({ node: z.string(), server_id: z.string() });

export class RedisRegistryStore implements RegistryStore {
  /** Filled by `preload` before the registry is built (the registry loads synchronously). */
  private initial: DurableState = { servers: {} };

  constructor(private readonly options: NodeRedis & { failed: (what: string, error: unknown) => void }) {}

  async preload(): Promise<void> {
    const credentials = await this.options.redis.hgetall(this.options.keys.credentials);
    const servers: DurableState["servers"] = {};
    for (const serverId of Object.keys(credentials)) {
      const record = await this.read(serverId);
      if (record) servers[serverId] = record;
    }
    this.initial = { servers };
  }

  load(): DurableState {
    return this.initial;
  }

  save(snapshot: () => DurableState, change: RegistryChange): void {
    const write =
      change.kind === "code_taken"
        ? this.options.redis.hdel(this.options.keys.codes(change.serverId), change.codeHash).then(() => undefined)
        : this.write(change.serverId, snapshot().servers[change.serverId]);
    write
      .then(() => this.announce(change.serverId))
      .catch((error: unknown) => this.options.failed(`registry ${change.kind} for ${change.serverId}`, error));
  }

  /** Registers `serverId` with `credentialHash` unless it is registered already; answers the credential that holds. */
  async claim(serverId: string, credentialHash: string): Promise<string> {
    const created = await this.options.redis.hsetnx(this.options.keys.credentials, serverId, credentialHash);
    if (created === 1) return credentialHash;
    return (await this.options.redis.hget(this.options.keys.credentials, serverId)) ?? credentialHash;
  }

  /** Takes a pairing code off every node at once: true for exactly one taker. */
  async takeCode(serverId: string, codeHash: string): Promise<boolean> {
    const taken = (await this.options.redis.hdel(this.options.keys.codes(serverId), codeHash)) === 1;
    if (taken) await this.announce(serverId);
    return taken;
  }

  /** One server's record as Redis holds it; undefined when it is not registered. */
  async read(serverId: string): Promise<ServerRecord | undefined> {
    const [credential, devices, codes, appConfig] = await Promise.all([
      this.options.redis.hget(this.options.keys.credentials, serverId),
      this.options.redis.hgetall(this.options.keys.devices(serverId)),
      this.options.redis.hgetall(this.options.keys.codes(serverId)),
      this.options.redis.hget(this.options.keys.appConfigs, serverId),
    ]);
    if (!credential) return undefined;
    const app = appConfigSchema.safeParse(appConfig === null ? undefined : parseJson(appConfig));
    return {
      ...(app.success && app.data ? { app_config: app.data } : {}),
      credential_hash: credential,
      devices: Object.entries(devices).flatMap(([token_hash, value]) => grantFrom(token_hash, value)),
      codes: Object.entries(codes).flatMap(([code_hash, expires]) =>
        Number.isFinite(Number(expires)) ? [{ code_hash, expires_at: Number(expires) }] : [],
      ),
    };
  }

  /** Writes a record whole (a registration, new grants, or every record again after Redis lost them). */
  async write(serverId: string, record: ServerRecord | undefined): Promise<void> {
    if (!record) return;
    const transaction = this.options.redis
      .multi()
      .hsetnx(this.options.keys.credentials, serverId, record.credential_hash)
      .del(this.options.keys.devices(serverId), this.options.keys.codes(serverId));
    if (record.devices.length > 0)
      transaction.hset(
        this.options.keys.devices(serverId),
        Object.fromEntries(record.devices.map((grant) => [grant.token_hash, grantValue(grant)])),
      );
    if (record.codes.length > 0)
      transaction.hset(
        this.options.keys.codes(serverId),
        Object.fromEntries(record.codes.map((code) => [code.code_hash, String(code.expires_at)])),
      );
    if (record.app_config) transaction.hset(this.options.keys.appConfigs, serverId, JSON.stringify(record.app_config));
    await transaction.exec();
  }

  async announce(serverId: string): Promise<void> {
    await this.options.redis.publish(
      this.options.keys.controlChannel,
      JSON.stringify({ node: this.options.nodeId, server_id: serverId }),
    );
  }
}

/** Undefined for text that is not JSON (a value another version wrote): dropped, never thrown. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
