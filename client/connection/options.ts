// What `connect()` takes besides the credentials (docs/client.md "Connecting").
import type { DismissMode } from "../notifications/dismissal.ts";
import type { StorageAdapter } from "../storage/storage.ts";
import type { WebSocketConstructor } from "../transport/bridge.ts";
import type { LivenessTimings } from "../transport/liveness.ts";
import type { FetchLike } from "../transport/http.ts";
import type { Route } from "../api/route-choice.ts";
import type { Timers } from "../util/timers.ts";
import type { CursorStore } from "./cursor-keeper.ts";

export interface ConnectOptions {
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** Defaults to the global WebSocket; Node 20 has none, pass `ws`'s. */
  WebSocket?: WebSocketConstructor;
  /**
   * The bridge URLs to use instead of the credentials' `bridge_url` (itself one URL or several separated by commas):
   * the nodes of a bridge cluster, tried in order; when the one in use fails the next is tried (docs/client.md
   * "Several bridge URLs").
   */
  bridgeUrls?: readonly string[];
  /**
   * Credentials and the dismissal cache; defaults to memory (nothing survives a restart). When the device is
   * revoked, the credentials saved here (if they are this client's) are removed before the status says so.
   */
  storage?: StorageAdapter;
  /** `mobile`: hide on tap, retry later; `desktop`: visible until the server confirms. Default mobile. */
  mode?: DismissMode;
  timers?: Timers;
  /** Long-poll window while the bridge is unreachable (ms; clamped to the server's 30000). Default 25000. */
  pollWaitMs?: number;
  retryDelaysMs?: readonly number[];
  heartbeatIntervalMs?: number;
  /** The phoenix socket's reconnect schedule (default: quick attempts, then jittered backoff; docs/client.md). */
  reconnectAfterMs?: (tries: number) => number;
  /**
   * Where server calls go: `auto` (default) straight to server_url while it answers, else through the bridge's API
   * relay; `direct` or `relay` always (docs/client.md "Route choice").
   */
  route?: Route;
  /** In `auto`, how long calls stay on the relay before server_url is tried again (ms). Default 30 000. */
  directProbeMs?: number;
  /** How long a relayed call waits for the bridge's answer (ms). Default 35 000 (the bridge times out at 30 000). */
  relayTimeoutMs?: number;
  /** When a silent bridge link is declared dead, on `timers` (default 5 s of silence, then 5 s for a ping's answer). */
  liveness?: LivenessTimings;
  /**
   * How long a WebSocket may take to open before the attempt counts as failed (default 5000). The bridge's long-poll
   * is used only when WebSocket attempts fail while its long-poll endpoint answers (docs/client.md "Transport choice").
   */
  longPollFallbackMs?: number;
  /** While on the bridge's long-poll, how often a WebSocket is tried again (ms, on `timers`). Default 60 000. */
  retryWebSocketMs?: number;
  /**
   * Where the event cursor is kept between runs, beside the app's own cache (docs/client.md "Resuming from the
   * device's cache"): a start with a saved cursor reads only the events after it. Default none: every start reads
   * from the log's head.
   */
  cursorStore?: CursorStore;
}
