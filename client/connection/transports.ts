// The transports of one client: the socket to the bridge (its pushes go to delivery, its facts to the connection
// machine) and the route choice of server calls (straight to server_url or through the bridge's relay). Delivery,
// ordering and the cursor are delivery.ts's; this file only builds and wires the transports.
import { RouteChoice } from "../api/route-choice.ts";
import { BridgeConnection, type BridgeHandlers } from "../transport/bridge.ts";
import { HttpApi } from "../transport/http.ts";
import { PushWaiter, RelayApi } from "../transport/relay.ts";
import { SealedRelayChannel } from "../transport/sealed-relay.ts";
import type { Timers } from "../util/timers.ts";
import type { Credentials } from "./credentials.ts";
import type { MachineInput } from "./machine.ts";
import type { ConnectOptions } from "./options.ts";
import type { EventDelivery } from "./delivery.ts";

export interface TransportDeps {
  credentials: Credentials;
  options: ConnectOptions;
  timers: Timers;
  delivery: EventDelivery;
  /** The store's epoch as the HTTP reader knows it (the bridge rejoins with it). */
  epoch(): string | undefined;
  /** Feeds the connection machine (driver.ts). */
  send(input: MachineInput): void;
  report(message: string, detail: unknown): void;
}

export interface Transports {
  bridge: BridgeConnection;
  routes: RouteChoice;
}

export function openTransports(deps: TransportDeps): Transports {
  const pushes = new PushWaiter(deps.timers);
  const bridge = bridgeConnection(deps, pushes);
  return { bridge, routes: routeChoice(deps, bridge, pushes) };
}

/** The socket to the bridge: what it hears goes to delivery (opened first when sealed) and to the machine. */
function bridgeConnection(deps: TransportDeps, pushes: PushWaiter): BridgeConnection {
  const { credentials, options, delivery, send, report } = deps;
  const handlers: BridgeHandlers = {
    joined: (replay, serverOnline) => send({ type: "bridge_joined", replay, serverOnline }),
    down: () => send({ type: "bridge_down" }),
    serverStatus: (status) => send({ type: "server_status", online: status.online, since: status.since }),
    // A bridge that is down is the reconnect schedule's business; a change of transport is worth a note.
    transport: (verdict) => verdict !== "bridge_down" && report(TRANSPORT_NOTES[verdict], verdict),
    event: (event) => {
      delivery.sequencer.push(event);
      pushes.pushed();
    },
    sealed: (envelope) => {
      delivery.openSealed(envelope);
      pushes.pushed();
    },
    refused: (reason) => send({ type: "auth_failed", reason }),
    malformed: (payload) => report("malformed bridge push skipped", payload),
  };
  return new BridgeConnection(
    {
      url: options.bridgeUrls ?? credentials.bridge_url,
      serverId: credentials.server_id,
      token: credentials.device_token,
      WebSocket: options.WebSocket,
      sinceId: () => delivery.sequencer.cursor,
      epoch: deps.epoch,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      reconnectAfterMs: options.reconnectAfterMs,
      liveness: options.liveness,
      longPollFallbackMs: options.longPollFallbackMs,
      retryWebSocketMs: options.retryWebSocketMs,
      fetch: options.fetch,
      timers: deps.timers,
    },
    handlers,
  );
}

/** Server calls straight to server_url or through the bridge's relay, whichever answers. */
function routeChoice(deps: TransportDeps, bridge: BridgeConnection, pushes: PushWaiter): RouteChoice {
  const { credentials, options, timers } = deps;
  return new RouteChoice({
    route: options.route ?? "auto",
    direct: new HttpApi({ baseUrl: credentials.server_url, token: credentials.device_token, fetch: options.fetch }),
    // An encrypting device seals every relayed call to the server's key (transport/sealed-relay.ts).
    relay: new RelayApi(
      credentials.e2e ? new SealedRelayChannel(bridge, credentials, credentials.e2e, timers) : bridge,
      pushes,
      options.relayTimeoutMs,
    ),
    timers,
    directProbeMs: options.directProbeMs,
    switched: (to, why) =>
      deps.report(`server calls now go ${to === "relay" ? "through the bridge relay" : "straight to server_url"}`, why),
  });
}

/** What onProblem says when the bridge transport is chosen (transport/transport-choice.ts). */
const TRANSPORT_NOTES = {
  upgrade_refused: "WebSockets to the bridge are refused while its HTTP answers: using the bridge's long-poll",
  websocket_back: "a WebSocket to the bridge opened again: leaving the long-poll",
} as const;
