// End-to-end encryption in the benchmarks (docs/security.md "Speed"): what the fan-out receivers and the relay
// benchmark need to act as encrypting devices. Devices are paired with one bench key pair (the server seals per
// event, not per device, so one key or a thousand cost it the same); receivers get the content key handed over
// instead of fetching GET /e2e/keys, and open a push only where a figure needs its content (latency's sent_at),
// as the plain receivers scan bytes instead of parsing JSON.
import type { Channel } from "phoenix";
import {
  fromBase64Url,
  generateKeyPair,
  openEvent,
  toBase64Url,
  type EventEnvelope,
} from "../../../client/wire/crypto/index.ts";
import { SealedRelayChannel } from "../../../client/transport/sealed-relay.ts";
import { systemTimers } from "../../../client/util/timers.ts";
import type { ContentKeys } from "../../../server/e2e/content-keys.ts";

export type BenchMode = "plain" | "e2e";

/** The public key every fan-out bench device pairs with in e2e mode (the relay benchmark hands its apps their own). */
export const BENCH_DEVICE_KEYS = generateKeyPair();

export function deviceKeyFor(mode: BenchMode): string | undefined {
  return mode === "e2e" ? BENCH_DEVICE_KEYS.publicKey : undefined;
}

/** What a receiver needs to open sealed pushes: the server id (bound in) and the current content key. */
export interface ReceiverKey {
  server_id: string;
  key_id: number;
  key: string;
}

export function receiverKey(serverId: string, keys: ContentKeys, scope: string): ReceiverKey {
  const { keyId, key } = keys.current(scope);
  return { server_id: serverId, key_id: keyId, key: toBase64Url(key) };
}

const decodedKeys = new WeakMap<ReceiverKey, Uint8Array>();

/** The key's bytes, decoded once per receiver key. */
function keyBytes(receiver: ReceiverKey): Uint8Array {
  let bytes = decodedKeys.get(receiver);
  if (!bytes) decodedKeys.set(receiver, (bytes = fromBase64Url(receiver.key)!));
  return bytes;
}

const PAYLOAD_AT = Buffer.from('"sealed_event",');

/** Events opened lately, by id: each receiver process stands for many devices, each of which opens an event once. */
const opened = new Map<string, number | undefined>();
const OPENED_KEPT = 1024;

/**
 * The `sent_at` inside a `sealed_event` frame (opened like the library opens it); undefined for other frames. The
 * bridge writes one Buffer to every socket, and a real device opens only its own copy: the same event arriving on
 * this process's other sockets (in whatever order the sockets are read) is opened once, so the figure is one
 * device's cost, not five hundred devices' on one core.
 */
export function sentAtOfSealed(frame: Buffer, receiver: ReceiverKey): number | undefined {
  const at = frame.indexOf(PAYLOAD_AT);
  if (at < 0) return undefined;
  const envelope = frame.toString("utf8", at + PAYLOAD_AT.length, frame.length - 1);
  const id = envelope.slice(envelope.indexOf('"event_id":"') + 12, envelope.indexOf('"event_id":"') + 32);
  if (opened.has(id)) return opened.get(id);
  const event = JSON.parse(
    openEvent(keyBytes(receiver), receiver.server_id, JSON.parse(envelope) as EventEnvelope),
  ) as { sent_at?: number };
  if (opened.size >= OPENED_KEPT) opened.delete(opened.keys().next().value!);
  opened.set(id, event.sent_at);
  return event.sent_at;
}

/** What an encrypting app holds: its device (paired with `device_secret_key`'s public key) and the server's key. */
export interface SealingApp {
  server_id: string;
  device_id: string;
  device_secret_key: string;
  server_key: string;
}

/** A relayed GET as an encrypting app makes it: sealed to the server's key, the answer opened. */
export function sealedRelayCall(channel: Channel, app: SealingApp, path: string): () => Promise<void> {
  const pushes = {
    push: (event: string, payload: object, timeoutMs: number) =>
      new Promise<{ status: "ok" | "error" | "timeout" | "closed"; response: unknown }>((resolve) => {
        channel
          .push(event, payload, timeoutMs)
          .receive("ok", (response: unknown) => resolve({ status: "ok", response }))
          .receive("error", (response: unknown) => resolve({ status: "error", response }))
          .receive("timeout", () => resolve({ status: "timeout", response: {} }));
      }),
  };
  const { server_id, device_id, device_secret_key, server_key } = app;
  const sealed = new SealedRelayChannel(
    pushes,
    { server_id, device_id },
    { device_secret_key, server_key },
    systemTimers,
  );
  return async () => {
    const reply = await sealed.push("api", { method: "GET", path }, 30_000);
    const status = (reply.response as { status?: number } | null)?.status;
    if (reply.status !== "ok" || status !== 200)
      throw new Error(`sealed relay answered ${reply.status} ${JSON.stringify(reply.response).slice(0, 200)}`);
  };
}
