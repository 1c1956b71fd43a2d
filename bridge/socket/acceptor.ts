// The upgrade path: an HTTP upgrade to /socket/websocket is checked (handshake: vsn, token, subprotocol; admission:
// the socket caps) and refused with a plain HTTP status, or accepted into a Connection that is tracked (registry,
// sightings, metrics) and wired to the router until it closes.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { Router } from "../channels/router.ts";
import type { BridgeCore } from "../core.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import type { PeerLogBudget } from "../log.ts";
import type { DeviceSightings } from "../state/device-sightings.ts";
import { SocketAdmission, type SocketIdentity } from "./admission.ts";
import type { Vsn } from "../protocol/serializer.ts";
import { Connection, webSocketTransport, type PeerTransport } from "./connection.ts";
import { wireFrames } from "./frame-wiring.ts";
import { chooseProtocol, readHandshake } from "./handshake.ts";
import { peerAddress } from "./peer-address.ts";

export class SocketAcceptor {
  /** Every socket accepted and not yet closed. */
  readonly open = new Set<Connection>();
  readonly wss: WebSocketServer;
  private readonly admission: SocketAdmission;
  private nextId = 1;

  constructor(
    private readonly core: BridgeCore,
    private readonly log: PeerLogBudget,
    private readonly router: Router,
    private readonly sightings: DeviceSightings,
  ) {
    this.admission = new SocketAdmission(core.config);
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: core.config.maxFrameBytes,
      handleProtocols: chooseProtocol,
      perMessageDeflate: false,
    });
  }

  /** The HTTP server's `upgrade` listener. */
  readonly upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Until ws takes the socket, nothing listens for its errors: a peer that resets the connection while we refuse
    // it would otherwise raise an uncaught ECONNRESET and end the process. Removed once ws listens, so the socket
    // does not hold this upgrade's scope (its handshake, token included) for its whole life.
    const destroyOnError = () => socket.destroy();
    socket.on("error", destroyOnError);
    const handshake = readHandshake(request);
    if (!handshake.ok) return refuseUpgrade(socket, handshake.status, handshake.problem);
    const address = peerAddress(request.socket.remoteAddress);
    const tokenHash = handshake.token === undefined ? undefined : sha256Hex(handshake.token);
    const { identity, admitted } = this.admit(address, tokenHash);
    if (!admitted.ok) return refuseUpgrade(socket, admitted.status, admitted.problem);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      socket.off("error", destroyOnError);
      const connection = this.connection(webSocketTransport(ws, socket), handshake.vsn, address, tokenHash);
      const release = this.track(connection, identity);
      wireFrames(this.core, this.router, connection, ws, release);
    });
  };

  /**
   * Admits and tracks a peer over another transport (a long-poll session), as an upgrade is; `onGone` undoes the
   * tracking when it ends (idempotent).
   */
  openPeer(
    transport: PeerTransport,
    vsn: Vsn,
    address: string,
    token: string | undefined,
  ): { ok: true; connection: Connection; onGone: () => void } | { ok: false; status: number; problem: string } {
    const tokenHash = token === undefined ? undefined : sha256Hex(token);
    const { identity, admitted } = this.admit(address, tokenHash);
    if (!admitted.ok) return admitted;
    const connection = this.connection(transport, vsn, address, tokenHash);
    const release = this.track(connection, identity);
    let gone = false;
    const onGone = () => {
      if (gone) return;
      gone = true;
      release();
    };
    return { ok: true, connection, onGone };
  }

  /**
   * Who the peer is (its token counts as a device's only when a paired device has it) and whether admission lets it
   * in; a refusal is counted and logged here, for an upgrade and a long-poll session alike.
   */
  private admit(address: string, tokenHash: string | undefined) {
    const identity: SocketIdentity = {
      address,
      deviceTokenHash: tokenHash !== undefined && this.core.registry.knowsToken(tokenHash) ? tokenHash : undefined,
    };
    const admitted = this.admission.check(identity);
    if (!admitted.ok) {
      this.core.metrics.socketsRefused++;
      this.log.warn({ address, status: admitted.status, problem: admitted.problem }, "socket refused");
    }
    return { identity, admitted };
  }

  /** The connection of an admitted peer, numbered in order of arrival. */
  private connection(transport: PeerTransport, vsn: Vsn, address: string, tokenHash: string | undefined): Connection {
    const { metrics, config, clock } = this.core;
    return new Connection(
      this.nextId++,
      transport,
      vsn,
      address,
      tokenHash,
      metrics,
      config.maxBufferedBytes,
      clock.now(),
    );
  }

  /** Counts an accepted socket everywhere it is counted; returns what undoes that when it closes. */
  private track(connection: Connection, identity: SocketIdentity): () => void {
    const { registry, metrics } = this.core;
    const release = this.admission.opened(identity);
    this.open.add(connection);
    registry.trackSocket(connection);
    this.sightings.note(connection);
    metrics.socketsOpen++;
    metrics.socketsTotal++;
    return () => {
      release();
      this.open.delete(connection);
      registry.untrackSocket(connection);
      this.sightings.note(connection);
      this.log.forgetSocket(connection.id);
      metrics.socketsOpen--;
    };
  }
}

/** Answers an upgrade request with a plain HTTP status instead of a WebSocket. */
function refuseUpgrade(socket: Duplex, status: number, problem: string): void {
  socket.end(`HTTP/1.1 ${status} ${problem}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
