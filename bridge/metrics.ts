// Counters and gauges for GET /metrics in the Prometheus text format. Plain numbers: the hot path only adds.
import type { ClusterFigures } from "./cluster/figures.ts";
export class BridgeMetrics {
  socketsOpen = 0;
  socketsTotal = 0;
  socketsRefused = 0;
  joinsOk = 0;
  joinsRefused = 0;
  framesIn = 0;
  framesOut = 0;
  badFrames = 0;
  slowConsumerDrops = 0;
  revokedCloses = 0;
  replayHits = 0;
  replayMisses = 0;
  eventsRelayed = 0;
  duplicateEvents = 0;
  pairingAttempts = 0;
  pairingFailures = 0;
  pairingRateLimited = 0;
  serverRegistrationsRefused = 0;
  /** A cluster node's figures (bridge/cluster/figures.ts), rendered after the node's own. */
  cluster: ClusterFigures | undefined;

  constructor(
    private readonly topicCount: () => number,
    private readonly serverCount: () => number,
  ) {}

  render(): string {
    const lines: string[] = [];
    const gauge = (name: string, help: string, value: number) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    const counter = (name: string, help: string, value: number) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    gauge("bridge_sockets", "Open WebSocket connections.", this.socketsOpen);
    counter("bridge_sockets_total", "WebSocket connections accepted.", this.socketsTotal);
    counter(
      "bridge_sockets_refused_total",
      "Connections refused before the upgrade: the bridge full, or too many unpaired sockets from one address.",
      this.socketsRefused,
    );
    gauge("bridge_topics", "Topics with at least one subscriber.", this.topicCount());
    gauge("bridge_servers_connected", "Servers whose channel is joined.", this.serverCount());
    counter("bridge_joins_total", "Channel joins answered ok.", this.joinsOk);
    counter("bridge_joins_refused_total", "Channel joins answered with an error.", this.joinsRefused);
    counter("bridge_frames_in_total", "Frames received.", this.framesIn);
    counter("bridge_frames_out_total", "Frames sent (a broadcast counts once per socket).", this.framesOut);
    counter("bridge_bad_frames_total", "Malformed or oversize frames.", this.badFrames);
    counter("bridge_slow_consumer_drops_total", "Sockets closed for a full send buffer.", this.slowConsumerDrops);
    counter("bridge_revoked_closes_total", "Sockets closed because their device was revoked.", this.revokedCloses);
    counter("bridge_replay_hits_total", "Joins with since_id answered from the replay buffer.", this.replayHits);
    counter(
      "bridge_replay_misses_total",
      "Joins with since_id whose gap was older than the buffer.",
      this.replayMisses,
    );
    counter("bridge_events_relayed_total", "Events received from servers and broadcast.", this.eventsRelayed);
    counter(
      "bridge_duplicate_events_total",
      "Events a server re-sent that were already relayed.",
      this.duplicateEvents,
    );
    counter("bridge_pairing_attempts_total", "Joins of the pairing topic.", this.pairingAttempts);
    counter(
      "bridge_pairing_failures_total",
      "Pairing joins refused (bad, expired or unknown code).",
      this.pairingFailures,
    );
    counter("bridge_pairing_rate_limited_total", "Pairing joins refused by the rate limit.", this.pairingRateLimited);
    counter(
      "bridge_server_registrations_refused_total",
      "Server joins for a new id refused: the server cap reached, or the address's registration rate.",
      this.serverRegistrationsRefused,
    );
    this.cluster?.render(counter, gauge);
    return `${lines.join("\n")}\n`;
  }
}
