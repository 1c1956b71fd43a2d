// Client library benchmark. Prints one JSON line of medians:
//  - pipeline_events_per_s: events through the client's own path (common-field validation, the sequencer's
//    exactly-once check with every event offered twice as overlapping sources do, the notification center and a
//    "*" plus a typed listener), against a baseline in the same run (JSON-shaped objects through a Set-based
//    dedupe, no validation, no stores). Floor: 50,000/s.
//  - failover_ms: from cutting the bridge link (TCP, no close frame) to the first event delivered over the HTTP
//    long-poll fallback, against a real server and bridge on 127.0.0.1.
import { connect } from "../../client/connection/client.ts";
import { EventSequencer } from "../../client/connection/sequencer.ts";
import { ListenerRegistry } from "../../client/events/listeners.ts";
import { NotificationCenter } from "../../client/notifications/center.ts";
import { memoryStorage } from "../../client/storage/storage.ts";
import { HttpApi } from "../../client/transport/http.ts";
import { systemTimers } from "../../client/util/timers.ts";
import { formatEventId } from "../../client/wire/event-id.ts";
import { anyEventSchema, type AnyEvent } from "../../client/wire/events.ts";
import { CuttableProxy } from "../../test/client/support/proxy.ts";
import { NodeWebSocket, Stack, until } from "../../test/client/support/stack.ts";
import { notificationRecord } from "../../test/support/notification-record.ts";
import { median } from "./stats.ts";

const EVENTS = 100_000;
const ROUNDS = 5;
const FAILOVERS = 7;

function makeEvents(): unknown[] {
  const events: unknown[] = [];
  for (let i = 1; i <= EVENTS; i++) {
    const event_id = formatEventId(i);
    if (i % 10 === 0) {
      const notification = notificationRecord({
        id: `n${i % 50}`,
        revision: i,
        key: `k${i % 50}`,
        created_at: "2025-01-01T00:00:00Z",
        updated_at: "2025-01-01T00:00:00Z",
        source: { plugin: "bench" },
      });

      events.push({
        event_id,
        type: "application_notification_updated",
        notification_id: notification.id,
        revision: i,
        notification,
      });
    } else {
      events.push({
        event_id,
        type: "partial",
        session_id: "s1",
        request_id: "r1",
        message: { role: "assistant", content: "tok " },
      });
    }
  }
  return events;
}

function pipelineRound(events: unknown[]): number {
  let heard = 0;
  const center = new NotificationCenter({
    http: new HttpApi({ baseUrl: "http://unused", token: "t", fetch: () => Promise.reject(new Error("offline")) }),
    storage: memoryStorage(),
    timers: systemTimers,
    connectionId: "bench",
    mode: "mobile",
    report: () => undefined,
  });
  const listeners = new ListenerRegistry(() => undefined);
  listeners.add("*", () => void heard++);
  listeners.add("partial", () => undefined);
  const sequencer = new EventSequencer((event) => {
    center.handleEvent(event);
    listeners.dispatch(event);
  });
  const start = performance.now();
  for (let i = 0; i < events.length; i++) {
    // Overlapping sources: the event, then the previous one again (a replay duplicate).
    for (const raw of [events[i], events[i - 1]]) {
      if (raw !== undefined && anyEventSchema.safeParse(raw).success) sequencer.accept(raw as AnyEvent);
    }
  }
  const seconds = (performance.now() - start) / 1000;
  if (heard !== events.length) throw new Error(`heard ${heard} of ${events.length}`);
  return events.length / seconds;
}

function baselineRound(events: unknown[]): number {
  const seen = new Set<string>();
  let heard = 0;
  const start = performance.now();
  for (let i = 0; i < events.length; i++) {
    for (const raw of [events[i], events[i - 1]] as Array<{ event_id: string } | undefined>) {
      if (raw && !seen.has(raw.event_id)) {
        seen.add(raw.event_id);
        heard++;
      }
    }
  }
  const seconds = (performance.now() - start) / 1000;
  if (heard !== events.length) throw new Error("baseline lost events");
  return events.length / seconds;
}

async function failovers(): Promise<number[]> {
  const stack = await Stack.start();
  const proxy = await CuttableProxy.start(() => stack.bridgePort);
  const credentials = { ...(await stack.pair()), bridge_url: proxy.url };
  const client = connect(credentials, { WebSocket: NodeWebSocket, reconnectAfterMs: () => 50, retryDelaysMs: [50] });
  const sessionId = await stack.createSession();
  const samples: number[] = [];
  try {
    for (let i = 0; i < FAILOVERS; i++) {
      await until(() => client.status.get().state === "live", "live");
      await until(() => client.cursor === stack.latestId(), "caught up");
      let deliveredAt = 0;
      const off = client.on("message_appended", () => void (deliveredAt ||= performance.now()));
      const cutAt = performance.now();
      proxy.cut({ refuse: true });
      await stack.append(sessionId, `failover ${i}`);
      await until(() => deliveredAt > 0, "delivered over HTTP", 30_000);
      samples.push(deliveredAt - cutAt);
      off();
      proxy.allow();
    }
  } finally {
    client.close();
    await proxy.close();
    await stack.close();
  }
  return samples;
}

async function main(): Promise<void> {
  const events = makeEvents();
  pipelineRound(events.slice(0, 10_000)); // warm-up
  baselineRound(events.slice(0, 10_000));
  const pipeline: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    pipeline.push(pipelineRound(events));
    baseline.push(baselineRound(events));
  }
  const failover = await failovers();
  const result = {
    bench: "client",
    events: EVENTS,
    rounds: ROUNDS,
    pipeline_events_per_s: Math.round(median(pipeline)),
    baseline_events_per_s: Math.round(median(baseline)),
    floor_events_per_s: 50_000,
    meets_floor: median(pipeline) >= 50_000,
    failover_ms: Math.round(median(failover) * 10) / 10,
    failover_samples: failover.length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
