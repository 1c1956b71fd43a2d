// Assembles a running bridge: one HTTP server for /health, /metrics, the WebSocket upgrade at /socket/websocket,
// Phoenix's long-poll at /socket/longpoll and the app's files at /, the router, the registry and an idle sweep. `close()` ends every socket with 1001 so apps and
// servers come back when a bridge is up again.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { BRIDGE_CLOSE } from "../client/wire/frames.ts";
import { Router } from "./channels/router.ts";
import { systemClock, type BridgeClock } from "./clock.ts";
import type { BridgeConfig } from "./config.ts";
import type { BridgeCore } from "./core.ts";
import { sha256Hex } from "./hash.ts";
import { httpHandler, notFound } from "./http/routes.ts";
import { appFiles, appUrlFor, DEFAULT_APP_DIR } from "./http/static.ts";
import { LongPollEndpoint } from "./transport/longpoll.ts";
import { jsonLogger, PeerLogBudget, type BridgeLogger } from "./log.ts";
import { BridgeMetrics } from "./metrics.ts";
import { AddressRateLimiter } from "./rate-limiter.ts";
import { decodeFrame, type Vsn } from "./protocol/serializer.ts";
import { SocketAdmission } from "./socket/admission.ts";
import { Connection, webSocketTransport, type PeerTransport } from "./socket/connection.ts";
import { chooseProtocol, readHandshake } from "./socket/handshake.ts";
import { DeviceSightings } from "./state/device-sightings.ts";
import { DurableStore } from "./state/durable-store.ts";
import { Registry } from "./state/registry.ts";

export interface BridgeOptions {
  config: BridgeConfig;
  clock?: BridgeClock;
  log?: BridgeLogger;
  /** How often idle sockets are looked for; tests call sweepIdle() themselves. 0 disables the timer. */
  sweepEveryMs?: number;
  /** The app's build served at `/` (default <repo>/app/dist); a page says so when it holds no index.html. */
  appDir?: string;
}

export interface RunningBridge {
  /** `ws://host:port/socket`, the endpoint the phoenix client is given. */
  url: string;
  /** The endpoint apps are given: BRIDGE_PUBLIC_URL, else `url`. */
  publicUrl: string;
  /** Where the app is served for them: publicUrl's http(s) form, without `/socket`. */
  appUrl: string;
  httpUrl: string;
  port: number;
  core: BridgeCore;
  /** Reports devices' sockets to their servers (`devices_seen`); tests flush and sweep it themselves. */
  sightings: DeviceSightings;
  /** Closes sockets silent for longer than the idle timeout, and long-poll sessions past theirs; returns how many. */
  sweepIdle(): number;
  /** Phoenix's long-poll sessions (transport/longpoll.ts). */
  longPoll: LongPollEndpoint;
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  // Every record naming a peer counts against that peer's budget: a peer decides how often it is refused.
  const log = new PeerLogBudget(options.log ?? jsonLogger(), clock, { linesPerPeer: config.logLinesPerPeer, windowMs: config.logWindowMs });
  const registry = new Registry(new DurableStore(config.dataDir), { events: config.replayEvents, bytes: config.replayBytes }, {
    onForeignGrant: ({ serverId, deviceId, owner }) => log.log("warn", "grant refused: token hash belongs to another server", { server_id: serverId, device_id: deviceId, owner }),
  });
  const metrics = new BridgeMetrics(() => registry.activeTopics, () => registry.connectedServers);
  // Pairing counts failed attempts only (limiterFailure below).
  const pairingLimiter = new AddressRateLimiter(clock, config.pairingFailuresPerAddress, config.pairingFailuresOverall, config.pairingWindowMs, config.pairingFailingAddresses);
  const core: BridgeCore = {
    config,
    clock,
    log,
    metrics,
    registry,
    pairingLimiter,
    limiterFailure(connection, reason) {
      pairingLimiter.record(connection.address);
      metrics.pairingFailures++;
      log.log("warn", "pairing attempt failed", { socket: connection.id, address: connection.address, reason });
    },
  };
  const router = new Router(core);
  const sightings = new DeviceSightings(registry);
  const admission = new SocketAdmission(config);
  const connections = new Set<Connection>();
  let nextId = 1;
  /** Counts, tracks and admits one peer over any transport; `gone` undoes it all (idempotent). */
  const openPeer = (transport: PeerTransport, vsn: Vsn, address: string, token: string | undefined) => {
    const tokenHash = token === undefined ? undefined : sha256Hex(token);
    const identity = { address, deviceTokenHash: tokenHash !== undefined && registry.device(tokenHash) !== undefined ? tokenHash : undefined };
    const admitted = admission.check(identity);
    if (!admitted.ok) {
      metrics.socketsRefused++;
      log.log("warn", "socket refused", { address, status: admitted.status, problem: admitted.problem });
      return admitted;
    }
    const release = admission.opened(identity);
    const connection = new Connection(nextId++, transport, vsn, address, tokenHash, metrics, config.maxBufferedBytes, clock.now());
    connections.add(connection);
    registry.trackSocket(connection);
    sightings.note(connection);
    metrics.socketsOpen++;
    metrics.socketsTotal++;
    let gone = false;
    const onGone = () => {
      if (gone) return;
      gone = true;
      release();
      connections.delete(connection);
      registry.untrackSocket(connection);
      sightings.note(connection);
      log.forgetSocket(connection.id);
      metrics.socketsOpen--;
    };
    return { ok: true as const, connection, onGone };
  };
  const longPoll = new LongPollEndpoint(
    {
      clock,
      log,
      open: (session, vsn, address, token) => {
        const opened = openPeer(session, vsn, address, token);
        if (!opened.ok) return opened;
        session.onEnd(() => {
          opened.connection.onClosed();
          opened.onGone();
        });
        return opened;
      },
      receive: (connection, text) => receive(core, router, connection, text),
    },
    { windowMs: config.longPollWindowMs, maxFrameBytes: config.maxFrameBytes },
  );
  const http = createServer(
    httpHandler({
      metrics,
      appFiles: appFiles(options.appDir ?? DEFAULT_APP_DIR, (response, path) => notFound(response, `GET ${path}`)),
      longPoll: (request, response, url) => longPoll.handle(request, response, url),
      failed: (error) => log.log("error", "http handler failed", { error: error instanceof Error ? error.message : String(error) }),
    }),
  );
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxFrameBytes, handleProtocols: chooseProtocol, perMessageDeflate: false });

  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until ws takes the socket, nothing listens for its errors: a peer that resets the connection while we refuse
    // it would otherwise raise an uncaught ECONNRESET and end the process.
    socket.on("error", () => socket.destroy());
    const handshake = readHandshake(request);
    if (!handshake.ok) {
      refuseUpgrade(socket, handshake.status, handshake.problem);
      return;
    }
    const address = request.socket.remoteAddress ?? "unknown";
    const tokenHash = handshake.token === undefined ? undefined : sha256Hex(handshake.token);
    const identity = { address, deviceTokenHash: tokenHash !== undefined && registry.device(tokenHash) !== undefined ? tokenHash : undefined };
    const admitted = admission.check(identity);
    if (!admitted.ok) {
      metrics.socketsRefused++;
      log.log("warn", "socket refused", { address, status: admitted.status, problem: admitted.problem });
      refuseUpgrade(socket, admitted.status, admitted.problem);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Admission is asked again: another peer may have taken the last place while the upgrade ran.
      const opened = openPeer(webSocketTransport(ws, socket), handshake.vsn, address, handshake.token);
      if (!opened.ok) return ws.terminate();
      wire(core, router, opened.connection, ws, opened.onGone);
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const sweepIdle = () => {
    const cutoff = clock.now() - config.idleTimeoutMs;
    let closed = 0;
    for (const connection of connections) {
      // A socket already closing waits for its close handshake (ws ends it after 30 s): not idle again.
      if (connection.closed || connection.lastSeen >= cutoff) continue;
      log.log("info", "idle socket closed", { socket: connection.id, address: connection.address });
      connection.close(BRIDGE_CLOSE.goingAway, "idle");
      closed++;
    }
    return closed + longPoll.sweep();
  };
  const sweepEvery = options.sweepEveryMs ?? Math.min(5000, Math.max(1, Math.floor(config.idleTimeoutMs / 4)));
  // A bridge whose own loop stalled (a burst of pipelined events, a loaded machine) must not take its backlog for
  // silent peers: their heartbeats sit unread in the kernel. So the timer only queues the sweep for the check phase,
  // after the poll phase has read what peers sent, and skips a round when the loop was late (real time, whatever
  // the injected clock says) before or after queueing it. Before this, a stall longer than the idle timeout closed
  // live sockets with 1001.
  let lastTick = performance.now();
  const tick = () => {
    const queuedAt = performance.now();
    const stalled = queuedAt - lastTick > 2 * sweepEvery;
    lastTick = queuedAt;
    if (stalled) return;
    setImmediate(() => {
      if (performance.now() - queuedAt <= sweepEvery) sweepIdle();
    });
  };
  const sweeper = sweepEvery > 0 ? setInterval(tick, sweepEvery) : undefined;
  sweeper?.unref();
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;

  const close = async () => {
    if (sweeper) clearInterval(sweeper);
    // Servers hear of the devices seen so far before their channels close.
    sightings.flush();
    sightings.stop();
    for (const connection of connections) connection.close(BRIDGE_CLOSE.goingAway, "bridge shutting down");
    // Peers get a moment to answer the close frame; stragglers are cut off so shutdown never hangs.
    const deadline = setTimeout(() => wss.clients.forEach((ws) => ws.terminate()), 500);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    clearTimeout(deadline);
  };
  const url = `ws://${host}:${port}/socket`;
  const publicUrl = config.publicUrl ?? url;
  return { url, publicUrl, appUrl: appUrlFor(publicUrl), httpUrl: `http://${host}:${port}`, port, core, sightings, sweepIdle, longPoll, close };
}

/** Answers an upgrade request with a plain HTTP status instead of a WebSocket. */
function refuseUpgrade(socket: Duplex, status: number, problem: string): void {
  socket.end(`HTTP/1.1 ${status} ${problem}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Connects one ws to the router: every frame is size-checked (by ws), parsed, validated, then routed. */
function wire(core: BridgeCore, router: Router, connection: Connection, ws: WebSocket, onGone: () => void): void {
  const { log, metrics, clock } = core;
  ws.on("message", (data: RawData, isBinary: boolean) => {
    connection.lastSeen = clock.now();
    if (!isBinary) return receive(core, router, connection, data.toString());
    metrics.framesIn++;
    if (connection.closed) return;
    metrics.badFrames++;
    log.log("warn", "malformed frame", { socket: connection.id, address: connection.address, problem: "binary frames are not spoken here" });
    connection.close(BRIDGE_CLOSE.invalidFrame, "malformed frame");
  });
  ws.on("error", (error: Error & { code?: string }) => {
    if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") metrics.badFrames++;
    log.log("warn", "socket error", { socket: connection.id, address: connection.address, code: error.code ?? null, problem: error.message });
  });
  ws.on("close", () => {
    connection.onClosed();
    onGone();
  });
}

/** One text frame from a peer (WebSocket message or long-poll line): parsed, validated, then routed. */
function receive(core: BridgeCore, router: Router, connection: Connection, text: string): void {
  const { log, metrics } = core;
  metrics.framesIn++;
  if (connection.closed) return;
  const decoded = decodeFrame(text, connection.vsn);
  if (!decoded.ok) {
    metrics.badFrames++;
    log.log("warn", "malformed frame", { socket: connection.id, address: connection.address, problem: decoded.problem });
    connection.close(BRIDGE_CLOSE.invalidFrame, "malformed frame");
    return;
  }
  try {
    router.handle(connection, decoded.frame);
  } catch (error) {
    // A bug in one handler must not take the process (and everyone else's sockets) down.
    log.log("error", "frame handler failed", { socket: connection.id, error: error instanceof Error ? error.message : String(error) });
    connection.close(BRIDGE_CLOSE.internalError, "internal error");
  }
}
