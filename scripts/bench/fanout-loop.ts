// The broadcast loop's own cost at 10,000 sockets (docs/benchmarks.md "Benchmark at 10,000 sockets"): the real
// Connection and EventTopic over transports that write nothing, so only the JavaScript of the fan-out is timed.
// Baseline, same run: the same loop over transports built as object literals with getters, the shape the WebSocket
// transport had, whose reads went megamorphic with one hidden class per socket. Prints ONE JSON line.
import { EventTopic } from "../../bridge/fanout/topic.ts";
import { soleAudienceEvent } from "../../bridge/fanout/audience.ts";
import { BridgeMetrics } from "../../bridge/metrics.ts";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { Connection, webSocketTransport, type PeerTransport } from "../../bridge/socket/connection.ts";
import { median } from "./stats.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const BROADCASTS = 200;

interface FakeWs {
  readyState: number;
  bufferedAmount: number;
}

/** A TCP socket that takes every write and sends nothing. */
const quietSocket = { cork: () => undefined, write: () => true, uncork: () => undefined } as unknown as Duplex;

/** The bridge's own WebSocket transport, over a fake ws and the quiet socket. */
function currentTransport(ws: FakeWs): PeerTransport {
  return webSocketTransport(ws as unknown as WebSocket, quietSocket);
}

/** The shape before: an object literal with getters per socket (bridge/socket/connection.ts before the change). */
function literalTransport(ws: FakeWs): PeerTransport {
  const socket = quietSocket;
  return {
    cork: () => socket.cork(),
    write: (frame) => void socket.write(frame),
    uncork: () => socket.uncork(),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    get open() {
      return ws.readyState === 1;
    },
    close: () => undefined,
  };
}

/** Median ms per broadcast to every socket, its flush included (the microtask that uncorks). */
async function timeBroadcasts(make: (ws: FakeWs) => PeerTransport): Promise<number> {
  const metrics = new BridgeMetrics(
    () => 0,
    () => 0,
  );
  const topic = new EventTopic("events:server:bench");
  for (let i = 0; i < SOCKETS; i++)
    topic.add(
      new Connection(
        i,
        make({ readyState: 1, bufferedAmount: 0 }),
        "2.0.0",
        "127.0.0.1",
        undefined,
        metrics,
        4 << 20,
        0,
      ),
    );
  const event = soleAudienceEvent("00000000000000000001", {
    payloadJson: JSON.stringify({ event: { event_id: "00000000000000000001", pad: "x".repeat(200) } }),
  });
  const times: number[] = [];
  for (let round = 0; round < BROADCASTS; round++) {
    const start = performance.now();
    topic.broadcast(event);
    await new Promise((resolve) => setImmediate(resolve));
    times.push(performance.now() - start);
  }
  return median(times);
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const baseline = await timeBroadcasts(literalTransport);
const current = await timeBroadcasts(currentTransport);
process.stdout.write(
  `${JSON.stringify({ bench: "fanout-loop", sockets: SOCKETS, broadcast_ms_median: round2(current), literal_transport_ms_median: round2(baseline), ratio_to_literal: round2(current / baseline) })}\n`,
);
