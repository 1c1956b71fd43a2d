// Pairing: an app with a code from the server's admin joins the bridge's `pairing` topic and gets its device
// credentials back. On any refusal the channel is left and the socket closed, because the official client would
// otherwise rejoin a refused topic forever (notes/phoenix-client.md).
import { Socket } from "phoenix";
import { pairingErrorReasonSchema, pairingOkSchema, type PairingErrorReason } from "../wire/frames.ts";
import type { WebSocketConstructor } from "../transport/bridge.ts";
import type { Credentials } from "./credentials.ts";

export interface PairOptions {
  /** The bridge's phoenix endpoint, e.g. ws://192.168.1.5:4000/socket. */
  bridgeUrl: string;
  code: string;
  deviceName: string;
  WebSocket?: WebSocketConstructor;
  /** How long to wait for the bridge's answer (default 10 s). */
  timeoutMs?: number;
}

export type PairFailure = PairingErrorReason | "timeout" | "bridge_unreachable" | "protocol";

export class PairingError extends Error {
  override readonly name = "PairingError";
  constructor(readonly reason: PairFailure) {
    super(`pairing failed: ${reason}`);
  }
}

export function pair(options: PairOptions): Promise<Credentials> {
  const socket = new Socket(options.bridgeUrl, options.WebSocket ? { transport: options.WebSocket } : {});
  const channel = socket.channel("pairing", { code: options.code, device_name: options.deviceName });
  return new Promise<Credentials>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: Credentials | PairingError) => {
      if (settled) return;
      settled = true;
      channel.leave();
      socket.disconnect();
      if (outcome instanceof PairingError) reject(outcome);
      else resolve(outcome);
    };
    socket.onError(() => finish(new PairingError("bridge_unreachable")));
    channel
      .join(options.timeoutMs ?? 10_000)
      .receive("ok", (response: unknown) => {
        const ok = pairingOkSchema.safeParse(response);
        finish(ok.success ? { bridge_url: options.bridgeUrl, ...ok.data } : new PairingError("protocol"));
      })
      .receive("error", (response: unknown) => {
        const reason = pairingErrorReasonSchema.safeParse((response as { reason?: unknown } | undefined)?.reason);
        finish(new PairingError(reason.success ? reason.data : "protocol"));
      })
      .receive("timeout", () => finish(new PairingError("timeout")));
    socket.connect();
  });
}
