// Assembles a running bridge from its named parts: the core the channels share (core.ts), the upgrade path
// (socket/acceptor.ts: handshake, admission, tracking) with each socket's frames wired to the router
// (socket/frame-wiring.ts), the idle sweep (socket/idle-sweep.ts), and one HTTP server for /health, /metrics, the
// upgrade at /socket/websocket, Phoenix's long-poll at /socket/longpoll (transport/longpoll.ts), share links' blobs
// at /shared/{token} (http/shared-route.ts) and the app's files at / (http/static.ts). `close()` ends every socket
// with 1001 so apps and servers come back when a bridge is up again.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebSocketServer } from "ws";
import { BRIDGE_CLOSE } from "../client/wire/frames.ts";
import { Router } from "./channels/router.ts";
import { after, systemClock, type Clock } from "./clock.ts";
import type { BridgeConfig } from "./config.ts";
import type { BridgeCore } from "./core.ts";
import { httpHandler, notFound } from "./http/routes.ts";
import { sharedRoute } from "./http/shared-route.ts";
import { appFiles, appUrlFor, DEFAULT_APP_DIR } from "./http/static.ts";
import { DEFAULT_RELAY_CONFIG } from "./relay/relay-config.ts";
import { DEFAULT_SHARED_BLOB_LIMITS, SharedBlobs } from "./sharing/shared-blobs.ts";
import { receiveFrame } from "./socket/frame-wiring.ts";
import { LongPollEndpoint } from "./transport/longpoll.ts";
import { processLog, PeerLogBudget, type BridgeLogger } from "./log.ts";
import { BridgeMetrics } from "./metrics.ts";
import { SocketAcceptor } from "./socket/acceptor.ts";
import type { Connection } from "./socket/connection.ts";
import { IdleSweep } from "./socket/idle-sweep.ts";
import { DeviceSightings } from "./state/device-sightings.ts";
import { AnswerDesk } from "./state/answer-desk.ts";
import { MemoryState } from "./state/memory-state.ts";
import type { SharedState } from "./state/shared-state.ts";
import { StatusPushes } from "./state/status-pushes.ts";
import { ClusterNode } from "./cluster/cluster-node.ts";

export interface BridgeOptions {
  config: BridgeConfig;
  clock?: Clock;
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
  /** Share links' sealed blobs served at GET /shared/{token} (sharing/shared-blobs.ts). */
  sharedBlobs: SharedBlobs;
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  // Every record naming a peer counts against that peer's budget: a peer decides how often it is refused.
  const log = new PeerLogBudget(options.log ?? processLog(), clock, {
    linesPerPeer: config.logLinesPerPeer,
    windowMs: config.logWindowMs,
  });
  const core = await buildCore(config, clock, log);
  let appUrl = "";
  const sightings = new DeviceSightings(core.servers, core.registry, clock);
  const router = new Router(core);
  const acceptor = new SocketAcceptor(core, log, router, sightings);
  const idle = new IdleSweep(acceptor.open, clock, config.idleTimeoutMs, log);
  const longPoll = longPollEndpoint(core, router, acceptor);
  const sharedBlobs = new SharedBlobs(core, { ...DEFAULT_SHARED_BLOB_LIMITS, timeoutMs: relayTimeout(config) });
  const http = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // Node checks both timeouts this often (its default, 30 s, would let them overrun by that much).
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
      ),
    },
    httpHandler({
      metrics: core.metrics,
      health: () => core.node.health(),
      appFiles: appFiles(options.appDir ?? DEFAULT_APP_DIR, (response, path) => notFound(response, `GET ${path}`)),
      longPoll: (request, response, url) => longPoll.handle(request, response, url),
      sharedBlob: sharedRoute(sharedBlobs, clock),
      // The app's URL is known once the port is: requests come after listen().
      appConfig: (serverId) => core.registry.appConfigFor(serverId, appUrl),
      failed: (error) =>
        log.error({ error: error instanceof Error ? error.message : String(error) }, "http handler failed"),
    }),
  );
  http.on("upgrade", acceptor.upgrade);
  await listen(http, config);
  // Often enough that a silent server link is found within a fifteenth of its timeout past it.
  const sweepEvery =
    options.sweepEveryMs ??
    Math.max(1, Math.floor(Math.min(5000, config.idleTimeoutMs / 4, config.serverLinkTimeoutMs / 15)));
  if (sweepEvery > 0) idle.start(sweepEvery);

  const close = async () => {
    idle.stop();
    // Servers hear of the devices seen so far before their channels close.
    sightings.flush();
    sightings.stop();
    await closeSockets(acceptor.open, acceptor.wss, http);
    await core.node.close();
  };
  const port = (http.address() as AddressInfo).port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `ws://${host}:${port}/socket`;
  const publicUrl = config.publicUrl ?? url;
  appUrl = appUrlFor(publicUrl);
  const sweepIdle = () => idle.sweep() + longPoll.sweep();
  return {
    url,
    publicUrl,
    appUrl,
    httpUrl: `http://${host}:${port}`,
    port,
    core,
    sightings,
    sweepIdle,
    longPoll,
    sharedBlobs,
    close,
  };
}

/** A part of a share link's blob is waited for as long as a relayed call (the server runs both the same way). */
function relayTimeout(config: BridgeConfig): number {
  return config.relay.timeoutMs ?? DEFAULT_RELAY_CONFIG.timeoutMs;
}

/** Long-poll sessions admitted and tracked by the acceptor, their frames routed like a WebSocket's. */
function longPollEndpoint(core: BridgeCore, router: Router, acceptor: SocketAcceptor): LongPollEndpoint {
  return new LongPollEndpoint(
    {
      clock: core.clock,
      log: core.log,
      open: (session, vsn, address, token) => {
        const opened = acceptor.openPeer(session, vsn, address, token);
        if (!opened.ok) return opened;
        session.onEnd(() => {
          opened.connection.onClosed();
          opened.onGone();
        });
        return opened;
      },
      receive: (connection, text) => receiveFrame(core, router, connection, text),
    },
    { windowMs: core.config.longPollWindowMs, maxFrameBytes: core.config.maxFrameBytes },
  );
}

/**
 * The parts every channel handler shares, around the shared state: in memory on a single node, or, with
 * BRIDGE_REDIS_URL, a cluster node (it connects and reads the registry's records from Redis first).
 */
async function buildCore(config: BridgeConfig, clock: Clock, log: BridgeLogger): Promise<BridgeCore> {
  const answers = new AnswerDesk();
  const statuses = new StatusPushes(clock);
  // The metrics count what the shared state holds once it exists (a cluster node counts into them as it starts).
  let counted: SharedState | undefined;
  const metrics = new BridgeMetrics(
    () => counted?.registry.activeTopics ?? 0,
    () => counted?.registry.connectedServers ?? 0,
  );
  const redisUrl = config.cluster.redisUrl;
  const shared: SharedState =
    redisUrl === undefined
      ? new MemoryState(config, { clock, log, metrics, answers, statuses })
      : await ClusterNode.start(config, redisUrl, { clock, log, metrics, answers, statuses });
  counted = shared;
  if (shared instanceof ClusterNode) metrics.cluster = shared.figures;
  return {
    config,
    clock,
    log,
    metrics,
    pairing: shared,
    servers: shared,
    replay: shared,
    grants: shared,
    node: shared,
    registry: shared.registry,
    answers,
    limiterFailure(connection, reason) {
      shared.pairingFailed(connection.address);
      metrics.pairingFailures++;
      log.warn({ socket: connection.id, address: connection.address, reason }, "pairing attempt failed");
    },
  };
}

async function listen(http: Server, config: BridgeConfig): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, config.host, () => resolve());
  });
}

/** Ends every socket with 1001 and stops listening; peers get a moment to answer, stragglers are cut off. */
async function closeSockets(open: Iterable<Connection>, wss: WebSocketServer, http: Server): Promise<void> {
  for (const connection of open) connection.close(BRIDGE_CLOSE.goingAway, "bridge shutting down");
  // A deadline, so shutdown never hangs on a peer that does not answer the close frame.
  const cancelDeadline = after(systemClock, 500, () => wss.clients.forEach((ws) => ws.terminate()));
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeAllConnections();
  cancelDeadline();
}
