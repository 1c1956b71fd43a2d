// One WebSocket peer: its protocol version, the channels it joined, its liveness and its send buffer. Sending
// goes through here so the slow-consumer bound and the frame counters hold for every path.
import type { WebSocket } from "ws";
import { BRIDGE_CLOSE, type Frame } from "../../client/wire/frames.ts";
import type { BridgeMetrics } from "../metrics.ts";
import { encodeFrame, type Vsn } from "../protocol/serializer.ts";

/** What a joined (or joining) channel must do when it ends: unsubscribe, forget a server, drop a pending pair. */
export interface ChannelEntry {
  joinRef: string | null;
  /** Frames the peer pushes on this topic once joined. Returns the reply, or undefined for no reply yet. */
  handleIn(frame: Frame): void;
  /** Ends the channel's work; called on leave, on a duplicate join and when the socket closes. */
  terminate(reason: string): void;
}

const TEXT = { binary: false } as const;

export class Connection {
  readonly channels = new Map<string, ChannelEntry>();
  lastSeen: number;
  closed = false;

  constructor(
    readonly id: number,
    private readonly ws: WebSocket,
    readonly vsn: Vsn,
    readonly address: string,
    /** SHA-256 of the device token the socket presented (params or subprotocol), if any. */
    readonly tokenHash: string | undefined,
    private readonly metrics: BridgeMetrics,
    private readonly maxBufferedBytes: number,
    now: number,
  ) {
    this.lastSeen = now;
  }

  send(frame: Frame): void {
    this.sendEncoded(encodeFrame(frame, this.vsn));
  }

  /**
   * Sends bytes already encoded for this socket's vsn: a broadcast encodes once for all sockets. A socket whose
   * unsent bytes pass the bound is closed instead of buffering without limit; it rejoins with since_id.
   */
  sendEncoded(data: string | Buffer): boolean {
    if (this.closed) return false;
    this.ws.send(data, TEXT);
    this.metrics.framesOut++;
    if (this.ws.bufferedAmount > this.maxBufferedBytes) {
      this.metrics.slowConsumerDrops++;
      this.close(BRIDGE_CLOSE.slowConsumer, "slow consumer");
      return false;
    }
    return true;
  }

  /** Ends every channel, then closes the socket with `code` (never 1000 for a peer that should come back). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.endChannels(reason);
    this.ws.close(code, reason);
  }

  /** The peer went away on its own: end the channels, nothing to send. */
  onClosed(): void {
    this.closed = true;
    this.endChannels("socket closed");
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  private endChannels(reason: string): void {
    const entries = [...this.channels.values()];
    this.channels.clear();
    for (const entry of entries) entry.terminate(reason);
  }
}
