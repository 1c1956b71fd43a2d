// Phoenix's LongPoll transport at /socket/longpoll, answered as a Phoenix endpoint answers it
// (phoenix lib/phoenix/transports/long_poll.ex; the client is assets/js/phoenix/longpoll.js; docs/bridge.md "Long-poll"):
//  - every answer is HTTP 200 with a JSON body whose `status` is what the client reads; `no-store`, CORS `*`;
//  - GET without a live session's token opens one (admitted like a WebSocket) and answers 410 with its token;
//  - GET with it answers 200 with the frames queued for it, or holds up to the window and answers 204;
//  - POST with it sends frames (one, or an `application/x-ndjson` batch of at most 100) and answers 200;
//    without a live session it answers 410, and phoenix.js reconnects and rejoins;
//  - a session no poll has touched for 1.5 windows ends (sweep), as a silent WebSocket is closed.
// A session is a Connection with another transport: the same router, channels, caps, metrics and log. Refusals that
// phoenix.js should retry (the bridge full, a device's cap) answer the HTTP status with `status: 500` in the body.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { BRIDGE_CLOSE } from "../../client/wire/close-codes.ts";
import type { Clock } from "../clock.ts";
import type { BridgeLogger } from "../log.ts";
import { parseVsn, type Vsn } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import { peerAddress } from "../socket/peer-address.ts";
import { LongPollSession, SESSION_TOKEN_PREFIX, type PollOutcome } from "./longpoll-session.ts";
import { readBody } from "./longpoll-body.ts";

/** Frames one POST may carry (phoenix.js batches at most this many; Phoenix reads no more). */
const MAX_BATCH = 100;

export interface LongPollLimits {
  /** How long a poll is held when nothing is queued (Phoenix: 10 s; phoenix.js gives up on a request after 20 s). */
  windowMs: number;
  /** Largest frame accepted, as over a WebSocket. */
  maxFrameBytes: number;
}

/** What the bridge lends the endpoint: admission, opening a Connection over a transport, and routing a frame. */
export interface LongPollHost {
  clock: Clock;
  log: BridgeLogger;
  /** Opens a Connection over `session` when admission allows; else the refusal. */
  open(
    session: LongPollSession,
    vsn: Vsn,
    address: string,
    deviceToken: string | undefined,
  ): { ok: true; connection: Connection } | { ok: false; status: number; problem: string };
  /** Routes one text frame from the peer, as a WebSocket message (a malformed one closes the connection). */
  receive(connection: Connection, text: string): void;
}

const deviceTokenSchema = z.string().min(1).max(200);

export class LongPollEndpoint {
  private readonly sessions = new Map<string, { session: LongPollSession; connection: Connection }>();
  /** Polls answered 204: held for the whole window with nothing to send. */
  emptyPolls = 0;

  constructor(
    private readonly host: LongPollHost,
    private readonly limits: LongPollLimits,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    response.setHeader("access-control-allow-origin", "*");
    if (request.method === "OPTIONS") return preflight(request, response);
    const found = this.find(request, url);
    if (found) found.connection.lastSeen = this.host.clock.now();
    if (request.method === "GET")
      return found ? this.listen(found.session, request, response) : this.open(request, response, url);
    if (request.method === "POST")
      return found ? this.publish(found.connection, request, response) : json(response, 200, { status: 410 });
    json(response, 400, {
      status: 400,
      error: { code: "bad_request", message: `${request.method} is not spoken at the long-poll endpoint` },
    });
  }

  /** Ends sessions no poll has touched for 1.5 windows (Phoenix's rule); returns how many. */
  sweep(): number {
    const cutoff = this.host.clock.now() - 1.5 * this.limits.windowMs;
    let ended = 0;
    for (const { session, connection } of [...this.sessions.values()]) {
      if (session.polling || connection.lastSeen >= cutoff) continue;
      this.host.log.info({ socket: connection.id, address: connection.address }, "long-poll session expired");
      connection.close(BRIDGE_CLOSE.goingAway, "long-poll session expired");
      ended++;
    }
    return ended;
  }

  private find(request: IncomingMessage, url: URL) {
    const header = request.headers["x-phoenix-longpoll-token"];
    const token =
      (typeof header === "string" ? header : undefined) ??
      url.searchParams.getAll("token").find((value) => value.startsWith(SESSION_TOKEN_PREFIX));
    return token === undefined ? undefined : this.sessions.get(token);
  }

  private open(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const vsn = parseVsn(url.searchParams.get("vsn"));
    if (!vsn) return json(response, 400, { status: 400, error: { code: "bad_request", message: "unsupported vsn" } });
    const header = request.headers["x-phoenix-authtoken"];
    // The device token: phoenix's authToken (a header over long-poll), or the socket param `token` of stock apps.
    const candidate =
      (typeof header === "string" ? header : undefined) ??
      url.searchParams.getAll("token").find((value) => !value.startsWith(SESSION_TOKEN_PREFIX));
    const deviceToken = candidate === undefined ? undefined : deviceTokenSchema.safeParse(candidate);
    if (deviceToken && !deviceToken.success)
      return json(response, 400, { status: 400, error: { code: "bad_request", message: "bad token" } });
    const session = new LongPollSession(this.host.clock);
    session.onEnd(() => this.sessions.delete(session.token));
    const opened = this.host.open(session, vsn, peerAddress(request.socket.remoteAddress), deviceToken?.data);
    if (!opened.ok) {
      // phoenix.js retries (with its backoff) on a body status of 500, as after a refused WebSocket upgrade.
      return json(response, opened.status, {
        status: 500,
        error: { code: opened.status === 503 ? "bridge_full" : "rate_limited", message: opened.problem },
      });
    }
    this.sessions.set(session.token, { session, connection: opened.connection });
    json(response, 200, { status: 410, token: session.token, messages: [] });
  }

  private async listen(session: LongPollSession, request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A poll whose request went away keeps its frames queued for the next one.
    const onGone = () => session.abandon();
    response.once("close", onGone);
    const outcome: PollOutcome = await session.poll(this.limits.windowMs);
    response.off("close", onGone);
    if (outcome.status === 410) return json(response, 200, { status: 410 });
    if (outcome.status === 204) this.emptyPolls++;
    json(response, 200, {
      status: outcome.status,
      token: session.token,
      messages: outcome.status === 200 ? outcome.messages : [],
    });
  }

  private async publish(connection: Connection, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const maxBytes = this.limits.maxFrameBytes * 4;
    const body = await readBody(request, maxBytes);
    if (!body.ok) {
      this.host.log.warn(
        {
          socket: connection.id,
          address: connection.address,
          problem: body.problem,
        },
        "long-poll batch refused",
      );
      connection.close(BRIDGE_CLOSE.tooBig, "batch too large");
      return json(response, 413, { status: 413, error: { code: "too_large", message: body.problem } });
    }
    const ndjson = (request.headers["content-type"] ?? "").startsWith("application/x-ndjson");
    const frames = ndjson ? body.text.split(/\r?\n/).filter((line) => line.length > 0) : [body.text];
    if (frames.length > MAX_BATCH || frames.some((frame) => Buffer.byteLength(frame) > this.limits.maxFrameBytes)) {
      this.host.log.warn(
        {
          socket: connection.id,
          address: connection.address,
          problem: "too many or too large frames",
        },
        "long-poll batch refused",
      );
      connection.close(BRIDGE_CLOSE.tooBig, "batch too large");
      return json(response, 413, {
        status: 413,
        error: { code: "too_large", message: `at most ${MAX_BATCH} frames of ${this.limits.maxFrameBytes} bytes` },
      });
    }
    for (const frame of frames) {
      if (connection.closed) break;
      this.host.receive(connection, frame);
    }
    // The Connection writes what the frames' replies queued (and checks the send bound) in a microtask at the end of
    // this turn; answer after it, so a session that ended on this batch (malformed, slow consumer) says so.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    // phoenix.js reconnects and rejoins on any status but 200.
    json(response, 200, { status: connection.closed ? 410 : 200 });
  }
}

function preflight(request: IncomingMessage, response: ServerResponse): void {
  const asked = request.headers["access-control-request-headers"];
  response.writeHead(200, {
    "access-control-allow-headers": typeof asked === "string" ? asked : "",
    "access-control-allow-methods": "get, post, options",
    "access-control-max-age": "3600",
    "content-length": 0,
  });
  response.end();
}

function json(response: ServerResponse, httpStatus: number, body: Record<string, unknown>): void {
  if (response.writableEnded || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(httpStatus, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}
