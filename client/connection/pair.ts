// Pairing: an app with a code from the server's admin joins the bridge's `pairing` topic and gets its device
// credentials back. On any refusal the channel is left and the socket closed, because the official client would
// otherwise rejoin a refused topic forever. One refusal is not final: `server_unavailable`
// (the code is valid but its server has not (re)joined the bridge yet, e.g. right after a bridge restart) is retried
// on the same socket, with backoff on the injected timers, for up to `retryUnavailableForMs`.
// With several bridge URLs (a cluster's nodes), a bridge that cannot be reached is skipped for the next one.
import type { Channel } from "phoenix";
import { pairingErrorReasonSchema, pairingOkSchema, type PairingErrorReason } from "../wire/frames.ts";
import { TransportChoice, type WebSocketConstructor } from "../transport/transport-choice.ts";
import { bridgeUrlsOf } from "../transport/bridge-urls.ts";
import { loadPhoenix, type PhoenixModule } from "../transport/phoenix-load.ts";
import { backoffDelay, systemTimers, type Timers, startTimer, cancelTimer, type TimerHandle } from "../util/timers.ts";
import type { Credentials } from "./credentials.ts";
import type { DeviceKeys } from "./pair-e2e.ts";

export interface PairOptions {
  /**
   * The bridge's phoenix endpoint, e.g. ws://192.168.1.5:4000/socket, or several separated by commas (a cluster's
   * nodes: each is tried in turn while the bridge is unreachable). The credentials keep it as given.
   */
  bridgeUrl: string;
  code: string;
  deviceName: string;
  /**
   * The server's public key from pair_url's `key` (parsePairUrl): the answer must be proven to come from it, or the
   * pairing fails with `server_key_mismatch`. Without it (a typed code) the answer's key is taken; show its
   * fingerprint (`serverFingerprint(credentials)`) for the person to compare.
   */
  serverKey?: string;
  /**
   * The server the code belongs to, when the app knows it (GET /app-config.json, or a link's `server`): the bridge
   * then answers an early code (made before that server's first link) `server_unavailable`, which is retried, rather
   * than `invalid_code` (docs/bridge.md "The pairing race").
   */
  serverId?: string;
  /** Pair end-to-end encrypted (default true): the device makes a key pair and the bridge relays ciphertext only. */
  e2e?: boolean;
  WebSocket?: WebSocketConstructor;
  /** How long to wait for the bridge's answer to one attempt (default 10 s). */
  timeoutMs?: number;
  /** How long `server_unavailable` is retried before it is the answer (default 10 s). */
  retryUnavailableForMs?: number;
  /** Delays between those retries (default 250 ms, 500 ms, 1 s, then every 2 s). */
  retryDelaysMs?: readonly number[];
  timers?: Timers;
}

/**
 * `server_key_mismatch`: the answer was not sealed by the server key the device trusts (a bridge in the middle);
 * `not_encrypted`: an encrypted pairing was answered in clear (a bridge that dropped the device key).
 */
export type PairFailure =
  PairingErrorReason | "timeout" | "bridge_unreachable" | "protocol" | "server_key_mismatch" | "not_encrypted";

export class PairingError extends Error {
  override readonly name = "PairingError";
  constructor(readonly reason: PairFailure) {
    super(`pairing failed: ${reason}`);
  }
}

export const PAIR_RETRY_FOR_MS = 10_000;
const PAIR_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000];

export async function pair(options: PairOptions): Promise<Credentials> {
  const urls = bridgeUrlsOf(options.bridgeUrl);
  for (const [index, url] of urls.entries()) {
    try {
      return await pairAt(url, options);
    } catch (error) {
      const last = index === urls.length - 1;
      if (last || !(error instanceof PairingError) || error.reason !== "bridge_unreachable") throw error;
    }
  }
  throw new PairingError("bridge_unreachable");
}

/** The credentials an ok reply gives: sealed ones opened against the trusted key; plain ones only when asked for. */
function credentialsFrom(
  response: unknown,
  options: PairOptions,
  keys: DeviceKeys | undefined,
): Credentials | PairingError {
  if (keys) {
    const opened = keys.open(response, options.bridgeUrl, options.serverKey);
    if (typeof opened !== "string") return opened;
    // A reply in clear to an encrypted pairing: the device key never reached the server.
    return new PairingError(
      opened === "protocol" && pairingOkSchema.safeParse(response).success ? "not_encrypted" : opened,
    );
  }
  const ok = pairingOkSchema.safeParse(response);
  return ok.success ? { bridge_url: options.bridgeUrl, ...ok.data } : new PairingError("protocol");
}

/**
 * One bridge address; the device key pair and the crypto that opens the answer load only for an end-to-end pairing,
 * and phoenix on the first pairing or connection (transport/phoenix-load.ts).
 */
async function pairAt(url: string, options: PairOptions): Promise<Credentials> {
  const { Socket } = await loadPhoenix();
  const keys = options.e2e === false ? undefined : new (await import("./pair-e2e.ts")).DeviceKeys();
  return pairAtWith(Socket, url, options, keys);
}

function pairAtWith(
  Socket: PhoenixModule["Socket"],
  url: string,
  options: PairOptions,
  keys: DeviceKeys | undefined,
): Promise<Credentials> {
  const timers = options.timers ?? systemTimers;
  const retryUntil = timers.now() + (options.retryUnavailableForMs ?? PAIR_RETRY_FOR_MS);
  const delays = options.retryDelaysMs ?? PAIR_RETRY_DELAYS_MS;

  // Where the upgrade is refused while the bridge's HTTP answers, pairing goes over the bridge's long-poll like the
  // live feed (transport/transport-choice.ts); a WebSocket refused with no HTTP answering is an unreachable bridge.
  const webSocket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  let unreachable = () => {};
  const choice = webSocket
    ? new TransportChoice({
        WebSocket: webSocket,
        timers,
        decided: (verdict) => verdict === "bridge_down" && unreachable(),
      })
    : undefined;
  const socket = new Socket(url, choice ? { transport: choice.transport } : {});
  choice?.attach(socket);
  return new Promise<Credentials>((resolve, reject) => {
    let settled = false;
    let channel: Channel | undefined;
    let retry: TimerHandle | undefined;
    const finish = (outcome: Credentials | PairingError) => {
      if (settled) return;
      settled = true;
      if (retry !== undefined) cancelTimer(retry);
      choice?.close();
      channel?.leave();
      socket.disconnect();
      if (outcome instanceof PairingError) reject(outcome);
      else resolve(outcome);
    };
    const attempt = (tries: number) => {
      channel = socket.channel("pairing", {
        code: options.code,
        device_name: options.deviceName,
        ...(options.serverId ? { server_id: options.serverId } : {}),
        ...keys?.joinParams,
      });
      const current = channel;
      current
        .join(options.timeoutMs ?? 10_000)
        .receive("ok", (response: unknown) => {
          finish(credentialsFrom(response, options, keys));
        })
        .receive("error", (response: unknown) => {
          const parsed = pairingErrorReasonSchema.safeParse((response as { reason?: unknown } | undefined)?.reason);
          const reason = parsed.success ? parsed.data : "protocol";
          if (reason !== "server_unavailable" || timers.now() >= retryUntil) return finish(new PairingError(reason));
          // Leave, or phoenix would rejoin the refused topic on its own schedule; the next attempt is ours.
          current.leave();
          retry = startTimer(
            timers,
            () => {
              retry = undefined;
              if (!settled) attempt(tries + 1);
            },
            backoffDelay(delays, tries),
          );
        })
        .receive("timeout", () => finish(new PairingError("timeout")));
    };
    unreachable = () => finish(new PairingError("bridge_unreachable"));
    // Over long-poll an error is a request the bridge did not answer (a late WebSocket's error is the choice's).
    socket.onError(() => {
      if (!choice || choice.connectedOverLongPoll) unreachable();
    });
    attempt(0);
    socket.connect();
  });
}
