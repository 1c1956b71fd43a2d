// The server's side of the bridge (docs/bridge.md "Forwarder"): joins `server:<id>` with the official phoenix
// client, pushes every stored event as `session_event` {event, after} in id order, woken by each commit (never a
// poll timer), with up to WINDOW pushes in flight, only while the link is open; the cursor advances on the bridge's
// acks and is persisted, and every join resends strictly from it, so either side can restart without loss or
// duplicates. It also hands the bridge the device/code grants on every change and
// answers the pairing requests the bridge forwards. While the bridge is down nothing here blocks HTTP: events
// simply wait in the store.
import { Socket, type Channel } from "phoenix";
import { WebSocket } from "ws";
import { MAX_EVENT_BYTES, devicesSeenSchema, pairRequestSchema, serverJoinOkSchema, truncatedStubOf } from "../../client/wire/frames.ts";
import { formatEventId, parseEventId, type AnyEvent } from "../../client/wire/index.ts";
import { generateToken } from "../auth/tokens.ts";
import type { ServerContext } from "../context.ts";
import { Meta } from "../db/meta.ts";
import { CursorExpiredError } from "../events/event-store.ts";
import { noteDevicesSeen, type PairingService } from "../pairing/pairing-service.ts";
import { pairingUrls } from "../pairing/urls.ts";
import { ForwarderCursor } from "./cursor.ts";

export interface ForwarderOptions {
  /** Where the bridge listens (main passes BRIDGE_URL); absent or empty means no bridge. */
  bridgeUrl?: string;
  /** Pushes in flight before waiting for acks. */
  window?: number;
  /** An ack slower than this means the link is stuck: reconnect and resume from the bridge's word. */
  ackTimeoutMs?: number;
  /** Reconnect backoff (tests shorten it); defaults to the phoenix client's. */
  reconnectAfterMs?: (tries: number) => number;
}

export interface Forwarder {
  stop(): Promise<void>;
}

const DEFAULT_WINDOW = 512;

/** One joined stretch of the channel; a rejoin starts a new one, and acks of an old one are ignored. */
interface Session {
  sentThrough: number;
  inFlight: number;
}

export function startForwarder(ctx: ServerContext, options: ForwarderOptions = {}): Forwarder {
  const url = options.bridgeUrl ?? "";
  if (url === "") return { stop: async () => undefined };
  const window = options.window ?? DEFAULT_WINDOW;
  const pairing = ctx.pairing;
  const credential = new Meta(ctx.db).getOrCreate("bridge_credential", () => generateToken(32));
  const cursor = new ForwarderCursor(ctx.db, ctx.events.epoch, ctx.log);
  const serverUrl = pairingUrls(ctx).serverUrl;
  const socket = new Socket(url, {
    transport: WebSocket as unknown as new (endpoint: string) => object,
    ...(options.reconnectAfterMs ? { reconnectAfterMs: options.reconnectAfterMs, rejoinAfterMs: options.reconnectAfterMs } : {}),
  });
  // The grants are read in phoenix callbacks and change listeners, where a throw (SQLITE_BUSY, the database closing)
  // would end the process: a failed read is logged, and the grants go with the next change or rejoin.
  const readGrants = () => {
    try {
      return pairing.grants();
    } catch (error) {
      ctx.log.error({ err: error }, "could not read the pairing grants for the bridge; sending them at the next change or rejoin");
      return undefined;
    }
  };
  const pushGrants = () => {
    const grants = readGrants();
    if (grants) channel.push("grants", grants);
  };
  // Params are a function: every rejoin carries the current cursor and grants. Without grants the join lacks
  // `devices` and `codes`, the bridge refuses it, and phoenix rejoins after its backoff (never empty grants: the
  // bridge would drop every device).
  const channel = socket.channel(`server:${ctx.serverId}`, () => ({ credential, epoch: ctx.events.epoch, cursor: cursor.formatted, ...readGrants() }));
  let session: Session | undefined;
  let stopped = false;

  // pump() runs inside phoenix callbacks (acks, the join reply) and commit listeners: a throw there (the store
  // closing under it, a SQLite error) would escape the ws message handler and take the server process down.
  const pump = () => {
    try {
      pumpOnce();
    } catch (error) {
      ctx.log.error({ err: error }, "forwarder failed to read or push events; the next commit or ack retries");
    }
  };

  // A push is made only on an open link: phoenix queues a push it cannot send (socket closing, channel rejoining) and
  // sends that queue on the next join, ahead of the resend from the cursor. A stale push running ahead of the cursor
  // made the bridge drop the resent events as duplicates (issue 11: cursor 516, then 541, 542, then 517...).
  const linkOpen = () => socket.isConnected() && channel.state === "joined";

  const pumpOnce = () => {
    const current = session;
    while (!stopped && current && current === session && linkOpen() && current.inFlight < window) {
      const events = readAfter(ctx, current, window - current.inFlight);
      if (events.length === 0) return;
      for (const event of events) send(current, event);
    }
  };

  const send = (current: Session, event: AnyEvent) => {
    const id = parseEventId(event.event_id)!;
    // `after` chains the pushes of one join: the bridge sees a hole in what it got as a hole, never as a range.
    const after = formatEventId(current.sentThrough);
    current.sentThrough = id;
    current.inFlight++;
    const settled = (acked: boolean) => {
      if (current !== session) return;
      current.inFlight--;
      if (!acked) ctx.log.error({ event_id: event.event_id }, "bridge refused an event; skipping it");
      // Acks come back in push order on one socket, so this id is the new contiguous high mark.
      cursor.advance(id);
      pump();
    };
    channel
      .push("session_event", { event: fitted(ctx, event), after }, options.ackTimeoutMs ?? 30_000)
      .receive("ok", () => settled(true))
      .receive("error", () => settled(false))
      .receive("timeout", () => {
        if (current !== session) return;
        ctx.log.warn("bridge ack timed out; reconnecting");
        session = undefined;
        socket.disconnect(() => socket.connect());
      });
  };

  channel
    .join()
    .receive("ok", (response: unknown) => {
      const parsed = serverJoinOkSchema.safeParse(response);
      if (!parsed.success) return ctx.log.error("bridge join reply not understood");
      const resumeAfter = parseEventId(parsed.data.resume_after)!;
      cursor.advance(resumeAfter);
      session = { sentThrough: Math.max(resumeAfter, cursor.value), inFlight: 0 };
      ctx.log.info({ resume_after: parsed.data.resume_after }, "forwarder joined the bridge");
      // The join's params were read when the join was queued, possibly before the socket opened: send fresh grants.
      pushGrants();
      pump();
    })
    .receive("error", (response: { reason?: string }) => ctx.log.warn({ reason: response.reason }, "bridge refused the server's join"));
  channel.onError(() => {
    session = undefined;
  });
  channel.on("pair_request", (payload: unknown) => {
    try {
      answerPairRequest(ctx, pairing, channel, payload, serverUrl);
    } catch (error) {
      // A failed redeem (SQLite busy, disk full) must not kill the server: the waiting app is told to try again.
      ctx.log.error({ err: error }, "answering a pairing request failed");
      const requestId = (payload as { request_id?: unknown } | null)?.request_id;
      if (typeof requestId === "string") channel.push("pair_result", { request_id: requestId, status: "error", reason: "server_unavailable" });
    }
  });

  channel.on("devices_seen", (payload: unknown) => {
    const parsed = devicesSeenSchema.safeParse(payload);
    if (parsed.success) noteDevicesSeen(ctx, parsed.data.device_ids);
    else ctx.log.warn("bridge sent a devices_seen the server does not understand");
  });

  const unsubscribeCommits = ctx.events.commits.subscribe(() => pump());
  const unsubscribeGrants = pairing.onChange(() => {
    if (session) pushGrants();
  });
  socket.connect();

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    session = undefined;
    unsubscribeCommits();
    unsubscribeGrants();
    cursor.close();
    await new Promise<void>((resolve) => socket.disconnect(() => resolve(), 1001, "server shutting down"));
  };
  ctx.shutdown.addEventListener("abort", () => void stop(), { once: true });
  return { stop };
}

/**
 * The event, or its stub when it would not fit in one bridge frame (a message_appended carries the whole session, an
 * image_data data URL may be megabytes). Pushing it whole would make the bridge close the socket (1009) and the
 * resend after every reconnect would jam the link for good; the stub keeps its place and the apps fetch it over HTTP.
 */
function fitted(ctx: ServerContext, event: AnyEvent): AnyEvent {
  const bytes = Buffer.byteLength(JSON.stringify(event));
  if (bytes <= MAX_EVENT_BYTES) return event;
  ctx.log.warn({ event_id: event.event_id, type: event.type, bytes, limit: MAX_EVENT_BYTES }, "event too big for a bridge frame; pushing a truncated stub");
  return truncatedStubOf(event);
}

function readAfter(ctx: ServerContext, current: Session, limit: number): AnyEvent[] {
  try {
    return ctx.events.list({ sinceId: current.sentThrough, limit }).events;
  } catch (error) {
    if (!(error instanceof CursorExpiredError)) throw error;
    // The bridge was away longer than the store keeps events: apps see a gap and fill it over HTTP.
    ctx.log.warn({ from: current.sentThrough, to: ctx.events.oldestValidCursor }, "forwarder cursor fell behind retention; skipping");
    current.sentThrough = ctx.events.oldestValidCursor;
    return ctx.events.list({ sinceId: current.sentThrough, limit }).events;
  }
}

function answerPairRequest(ctx: ServerContext, pairing: PairingService, channel: Channel, payload: unknown, serverUrl: string): void {
  const request = pairRequestSchema.safeParse(payload);
  if (!request.success) return ctx.log.warn("pair_request not understood");
  const { request_id, code, device_name } = request.data;
  // redeem() announces the change first, so the grants push (with the new device) precedes this answer.
  const result = pairing.redeem(code, device_name);
  if (result.ok) {
    ctx.log.info({ device_id: result.device_id }, "device paired through the bridge");
    channel
      .push("pair_result", { request_id, status: "ok", device_id: result.device_id, device_token: result.device_token, server_url: serverUrl })
      .receive("error", (response: { reason?: string }) => {
        if (response?.reason !== "abandoned") return ctx.log.warn({ device_id: result.device_id, reason: response?.reason }, "bridge refused a pair_result");
        // The app left before the bridge could hand it the token: nobody can use this device, so it goes at once.
        ctx.log.warn({ device_id: result.device_id }, "pairing abandoned by the app; revoking the device it created");
        try {
          pairing.revoke(result.device_id);
        } catch (error) {
          ctx.log.error({ err: error, device_id: result.device_id }, "revoking an abandoned device failed");
        }
      })
      .receive("timeout", () => ctx.log.warn({ device_id: result.device_id }, "pair_result not acknowledged; the device stays (the admin may revoke it)"));
  } else {
    ctx.log.warn({ reason: result.reason }, "pairing attempt refused");
    channel.push("pair_result", { request_id, status: "error", reason: result.reason });
  }
}
