// One peer (a WebSocket, or a Phoenix long-poll session): its protocol version, the channels it joined, its liveness and its send buffer. Sending
// goes through here so the slow-consumer bound and the frame counters hold for every path.
//
// Writes: every frame is framed once (protocol/ws-frame.ts) and written on the TCP socket directly, in call order.
// The socket is corked on its first write of a turn and uncorked by one microtask at the end of the turn, so all the
// frames a socket gets in one turn (a burst of pipelined events, their acks) leave in one writev; a lone event
// leaves as soon as the turn that relayed it ends (no timer, no added latency). The slow-consumer bound is checked
// after that writev, against what the kernel did not take: checked per write, it counted bytes never yet offered
// to the kernel and closed fast readers that were sent a large replay.
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { BRIDGE_CLOSE, type Frame } from "../../client/wire/frames.ts";
import type { BridgeMetrics } from "../metrics.ts";
import { encodeFrame, type Vsn } from "../protocol/serializer.ts";
import { textFrame } from "../protocol/ws-frame.ts";

/** What a joined (or joining) channel must do when it ends: unsubscribe, forget a server, drop a pending pair. */
export interface ChannelEntry {
  joinRef: string | null;
  /** Frames the peer pushes on this topic once joined. Returns the reply, or undefined for no reply yet. */
  handleIn(frame: Frame): void;
  /** Ends the channel's work; called on leave, on a duplicate join and when the socket closes. */
  terminate(reason: string): void;
}

/**
 * How a Connection reaches its peer: a WebSocket, or a long-poll session (transport/longpoll-session.ts). Frames
 * arrive as complete WebSocket text frames (the fan-out frames a broadcast once for every socket); a transport that
 * is not a WebSocket takes the payload back out of them.
 */
export interface PeerTransport {
  cork(): void;
  write(frame: Buffer): void;
  uncork(): void;
  /** Bytes accepted but not yet taken by the peer (the kernel's, for a WebSocket). */
  readonly bufferedAmount: number;
  /** Whether a frame written now can still reach the peer. */
  readonly open: boolean;
  close(code: number, reason: string): void;
}

const WS_OPEN = 1;

/** A WebSocket peer: frames go on the upgraded TCP socket directly (`ws` sends only close and pong frames here). */
export function webSocketTransport(ws: WebSocket, socket: Duplex): PeerTransport {
  return new WebSocketTransport(ws, socket);
}

/**
 * A class, not an object literal with getters: V8 gives every such literal its own hidden class (the getters are
 * new closures each time), so with 10,000 sockets the fan-out's `open` and `bufferedAmount` reads went megamorphic
 * and missed the inline caches, ~2/3 of broadcast time in a 10,000-socket profile. Instances of one class share one.
 */
class WebSocketTransport implements PeerTransport {
  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
  ) {}

  cork(): void {
    this.socket.cork();
  }

  write(frame: Buffer): void {
    this.socket.write(frame);
  }

  uncork(): void {
    this.socket.uncork();
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  get open(): boolean {
    return this.ws.readyState === WS_OPEN;
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }
}

/** Sockets corked during this turn; one microtask uncorks them all. */
let corkedThisTurn: Connection[] = [];
let flushQueued = false;

function flushAll(): void {
  const list = corkedThisTurn;
  corkedThisTurn = [];
  flushQueued = false;
  for (const connection of list) connection.flush();
}

export class Connection {
  readonly channels = new Map<string, ChannelEntry>();
  lastSeen: number;
  /** Silence past this closes the socket; undefined: the bridge's idle timeout (a server's link is given less). */
  idleLimitMs: number | undefined;
  closed = false;
  private corked = false;

  constructor(
    readonly id: number,
    private readonly transport: PeerTransport,
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

  /** Sends one message already encoded for this socket's vsn (framed here). */
  sendEncoded(data: string | Buffer): void {
    this.sendFramed(textFrame(data));
  }

  /** Sends a complete WebSocket frame (textFrame): a broadcast frames once for all sockets. */
  sendFramed(frame: Buffer): void {
    if (!this.open) return;
    if (!this.corked) {
      this.corked = true;
      this.transport.cork();
      corkedThisTurn.push(this);
      if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flushAll);
      }
    }
    this.transport.write(frame);
    this.metrics.framesOut++;
  }

  /**
   * Writes what this turn queued on the socket (one writev). A socket whose unsent bytes then pass the bound is
   * closed instead of buffering without limit; it rejoins with since_id.
   */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.transport.uncork();
    if (!this.closed && this.transport.bufferedAmount > this.maxBufferedBytes) {
      this.metrics.slowConsumerDrops++;
      this.close(BRIDGE_CLOSE.slowConsumer, "slow consumer");
    }
  }

  /** Whether frames sent now can still reach the peer (false from the peer's close frame on, not only its end). */
  get open(): boolean {
    return !this.closed && this.transport.open;
  }

  /** Ends every channel, then closes the socket with `code` (never 1000 for a peer that should come back). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.endChannels(reason);
    this.transport.close(code, reason);
    // The close frame follows what this turn queued; both leave now.
    this.flush();
  }

  /** The peer went away on its own: end the channels, nothing to send. */
  onClosed(): void {
    this.closed = true;
    this.flush();
    this.endChannels("socket closed");
  }

  get bufferedAmount(): number {
    return this.transport.bufferedAmount;
  }

  private endChannels(reason: string): void {
    const entries = [...this.channels.values()];
    this.channels.clear();
    for (const entry of entries) entry.terminate(reason);
  }
}
