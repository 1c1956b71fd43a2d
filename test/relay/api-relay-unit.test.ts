// The API relay on its own (bridge/relay/api-relay.ts), without a bridge, a server or a socket: a hand-moved clock,
// the bridge's real answer desk, a registry of grants the test changes, a server link that records what it is sent,
// and apps that record the frames they are answered. Each refusal (revoked token, malformed call, long-poll, body too
// large, rate limit) with its reason and log line, the api_request the server gets, the answer (ok, error, another
// server's, a revoked device's, a gone app's), the timeout, a server that is away at once or later, and the ends of
// a server's channel and of an app. Fast on purpose: mutation testing runs these for every mutant of the file
// (docs/testing.md "Mutation score"); test/relay/relay-attacks.test.ts drives the same over a real bridge.
import { describe, expect, it } from "vitest";
import { RELAY_MAX_BODY_BYTES, type Frame } from "../../client/wire/frames.ts";
import type { BridgeCore } from "../../bridge/core.ts";
import { ApiRelay } from "../../bridge/relay/api-relay.ts";
import type { RelayConfig } from "../../bridge/relay/relay-config.ts";
import type { Connection } from "../../bridge/socket/connection.ts";
import { AnswerDesk } from "../../bridge/state/answer-desk.ts";
import type { ServerState } from "../../bridge/state/registry.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { MemoryLogger } from "../support/memory-logger.ts";

type Delivery = boolean | Promise<boolean>;

/** An app's socket: what it is answered, and whether it is still open. */
function app(id: number, tokenHash: string | undefined = `hash${id}`) {
  const frames: Frame[] = [];
  const connection = { id, address: `10.0.0.${id}`, tokenHash, open: true, send: (frame: Frame) => frames.push(frame) };
  return { connection: connection as unknown as Connection & { open: boolean }, frames };
}

function setUp(relay: Partial<RelayConfig> = {}) {
  const clock = new ManualClock();
  const log = new MemoryLogger();
  const answers = new AnswerDesk();
  /** serverId → token hash → device id */
  const grants = new Map<string, Map<string, string>>([["srv1", new Map([["hash1", "dev1"]])]]);
  const sent: Array<{ state: ServerState; event: string; payload: Record<string, unknown> }> = [];
  let delivery: () => Delivery = () => true;
  const core = {
    config: { relay },
    clock,
    log,
    answers,
    registry: { deviceOf: (serverId: string, hash: string) => grants.get(serverId)?.get(hash) },
    servers: {
      toServer: (state: ServerState, event: string, payload: Record<string, unknown>) => {
        sent.push({ state, event, payload });
        return delivery();
      },
    },
  };
  const relayer = new ApiRelay(core as unknown as BridgeCore);
  const server = (id = "srv1") => ({ id }) as ServerState;
  let refs = 0;
  const push = (payload: Record<string, unknown>): Frame => ({
    joinRef: "1",
    ref: String(++refs),
    topic: "events:server:srv1",
    event: "api",
    payload,
  });
  const call = (connection: Connection, payload: Record<string, unknown> = { method: "GET", path: "/sessions" }) => {
    const frame = push(payload);
    relayer.forward(connection, server(), frame);
    return frame;
  };
  const requestId = (index = sent.length - 1) => String(sent[index]!.payload.request_id);
  const answer = (payload: Record<string, unknown>, serverId = "srv1") =>
    answers.take("api_result", server(serverId), payload);
  return {
    clock,
    log,
    grants,
    sent,
    relayer,
    server,
    call,
    requestId,
    answer,
    deliver: (next: () => Delivery) => (delivery = next),
  };
}

/** The clock's wakes and the cluster's answers settle on promises: one turn of the event loop lets them run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const reply = (frame: Frame) => frame.payload as { status: string; response: Record<string, unknown> };
const replyOf = (to: Frame) => ({ joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: "phx_reply" });

describe("the API relay on its own", () => {
  it("sends the server an api_request with the device the grant names and a request id of its own", () => {
    const { call, sent } = setUp();
    const { connection, frames } = app(1);
    call(connection, { method: "POST", path: "/sessions", body: { title: "x" } });
    call(connection, { method: "GET", path: "/sessions" });
    expect(frames).toEqual([]);
    expect(sent[0]!.event).toBe("api_request");
    expect(sent[0]!.state.id).toBe("srv1");
    const { request_id, ...rest } = sent[0]!.payload;
    expect(rest).toEqual({ device_id: "dev1", method: "POST", path: "/sessions", body: { title: "x" } });
    expect(request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]!.payload).not.toHaveProperty("body");
    expect(sent[1]!.payload.request_id).not.toBe(request_id);
  });

  it("refuses a token without a grant, a socket without a token, a malformed call, a long-poll and a body too large", () => {
    const { call, sent, log } = setUp();
    const cases: Array<[Connection, Record<string, unknown>, string, string]> = [
      [
        app(2).connection,
        { method: "GET", path: "/sessions" },
        "invalid_request",
        "relay call from a token this server no longer grants",
      ],
      [
        app(3, undefined).connection,
        { method: "GET", path: "/sessions" },
        "invalid_request",
        "relay call from a token this server no longer grants",
      ],
      [app(1).connection, { method: "GET", path: "sessions" }, "invalid_request", "relay call malformed"],
      [
        app(1).connection,
        { method: "GET", path: "/sessions/s1/events?wait_ms=1000" },
        "invalid_request",
        "relay call asked for a long-poll (wait_ms)",
      ],
      [
        app(1).connection,
        { method: "POST", path: "/sessions", body: "x".repeat(RELAY_MAX_BODY_BYTES) },
        "too_large",
        "relay call body too large",
      ],
    ];
    for (const [connection, payload, reason, msg] of cases) {
      const frames: Frame[] = [];
      (connection as unknown as { send: (f: Frame) => void }).send = (frame) => frames.push(frame);
      const pushed = call(connection, payload);
      expect(frames).toEqual([{ ...replyOf(pushed), payload: { status: "error", response: { reason } } }]);
      const record = log.records.at(-1)!;
      expect(record).toMatchObject({ level: "warn", msg, fields: { socket: connection.id, reason } });
      expect(record.fields).toMatchObject({ address: connection.address, topic: "events:server:srv1" });
    }
    expect(log.records[2]!.fields.problem).toEqual(expect.any(String));
    expect(log.records[0]!.fields).not.toHaveProperty("problem");
    expect(sent).toEqual([]);
  });

  it("takes a body exactly at the bound", () => {
    const { call, sent } = setUp();
    const body = "x".repeat(RELAY_MAX_BODY_BYTES - 2);
    call(app(1).connection, { method: "POST", path: "/sessions", body });
    expect(sent).toHaveLength(1);
  });

  it("rate-limits calls past the socket's in-flight bound, and admits again once one is answered", () => {
    const { call, sent, answer, requestId, log } = setUp({ inFlightPerSocket: 2 });
    const { connection, frames } = app(1);
    call(connection);
    call(connection);
    const third = call(connection);
    expect(sent).toHaveLength(2);
    expect(frames).toEqual([{ ...replyOf(third), payload: { status: "error", response: { reason: "rate_limited" } } }]);
    expect(log.records.at(-1)).toMatchObject({ msg: "relay call rate limited", fields: { reason: "rate_limited" } });
    expect(answer({ request_id: requestId(0), status: 200, body: {} })).toBe(true);
    call(connection);
    expect(sent).toHaveLength(3);
  });

  it("bounds the calls in flight per server, each server on its own", () => {
    const { relayer, grants, server, sent } = setUp({ inFlightPerServer: 1 });
    grants.set("srv2", new Map([["hash2", "dev2"]]));
    grants.get("srv1")!.set("hash2", "dev3");
    const push = (topic: string): Frame => ({
      joinRef: "1",
      ref: "1",
      topic,
      event: "api",
      payload: { method: "GET", path: "/sessions" },
    });
    const first = app(1);
    const second = app(2);
    relayer.forward(first.connection, server("srv1"), push("events:server:srv1"));
    relayer.forward(second.connection, server("srv2"), push("events:server:srv2"));
    expect(sent.map((one) => one.state.id)).toEqual(["srv1", "srv2"]);
    relayer.forward(second.connection, server("srv1"), push("events:server:srv1"));
    expect(sent).toHaveLength(2);
    expect(second.frames.map(reply)).toEqual([{ status: "error", response: { reason: "rate_limited" } }]);
  });

  it("answers the app's push with the server's answer, without the request id, once", () => {
    const { call, answer, requestId } = setUp();
    const { connection, frames } = app(1);
    const pushed = call(connection);
    const result = { request_id: requestId(), status: 201, body: { ok: 1 }, content_type: "application/json" };
    expect(answer(result)).toBe(true);
    expect(frames).toEqual([
      {
        ...replyOf(pushed),
        payload: { status: "ok", response: { status: 201, body: { ok: 1 }, content_type: "application/json" } },
      },
    ]);
    expect(answer(result)).toBe(false);
    expect(frames).toHaveLength(1);
  });

  it("passes a server's error reason on as the push's error", () => {
    const { call, answer, requestId } = setUp();
    const { connection, frames } = app(1);
    call(connection);
    expect(answer({ request_id: requestId(), reason: "too_large" })).toBe(true);
    expect(reply(frames[0]!)).toEqual({ status: "error", response: { reason: "too_large" } });
  });

  it("ignores an answer from another server, an unknown request and a malformed result", () => {
    const { call, answer, requestId } = setUp();
    const { connection, frames } = app(1);
    call(connection);
    expect(answer({ request_id: requestId(), status: 200, body: {} }, "srv2")).toBe(false);
    expect(answer({ request_id: "nobody", status: 200, body: {} })).toBe(false);
    expect(answer({ request_id: requestId(), status: 99, body: {} })).toBe(false);
    expect(frames).toEqual([]);
    expect(answer({ request_id: requestId(), status: 200, body: {} })).toBe(true);
    expect(frames).toHaveLength(1);
  });

  it("never answers a device revoked or regranted to another device meanwhile, and logs the drop", () => {
    const { call, answer, requestId, grants, log } = setUp();
    const { connection, frames } = app(1);
    call(connection);
    const first = requestId();
    call(connection);
    const second = requestId();
    grants.get("srv1")!.set("hash1", "dev9");
    expect(answer({ request_id: first, status: 200, body: {} })).toBe(true);
    grants.get("srv1")!.delete("hash1");
    expect(answer({ request_id: second, status: 200, body: {} })).toBe(true);
    expect(frames).toEqual([]);
    const dropped = log.records.filter((record) => record.msg === "relay answer for a revoked device dropped");
    expect(dropped).toHaveLength(2);
    expect(dropped[0]!.fields).toEqual({ socket: 1, server_id: "srv1", device_id: "dev1" });
  });

  it("answers nothing to an app whose socket closed, and frees its slot", () => {
    const { call, answer, requestId, sent } = setUp({ inFlightPerSocket: 1 });
    const { connection, frames } = app(1);
    call(connection);
    connection.open = false;
    expect(answer({ request_id: requestId(), status: 200, body: {} })).toBe(true);
    expect(frames).toEqual([]);
    connection.open = true;
    call(connection);
    expect(sent).toHaveLength(2);
  });

  it("times a call out after timeoutMs: timeout to the app, logged, its slot freed, a late answer ignored", async () => {
    const { call, answer, requestId, clock, log, sent } = setUp({ timeoutMs: 1000, inFlightPerSocket: 1 });
    const { connection, frames } = app(1);
    call(connection);
    clock.advance(999);
    await turn();
    expect(frames).toEqual([]);
    clock.advance(1);
    await turn();
    expect(frames.map(reply)).toEqual([{ status: "error", response: { reason: "timeout" } }]);
    expect(log.records.at(-1)).toMatchObject({
      msg: "relay call failed",
      fields: { socket: 1, address: "10.0.0.1", server_id: "srv1", reason: "timeout" },
    });
    expect(answer({ request_id: requestId(), status: 200, body: {} })).toBe(false);
    call(connection);
    expect(sent).toHaveLength(2);
  });

  it("a timed-out call of a closed app is logged, not answered", async () => {
    const { call, clock, log } = setUp({ timeoutMs: 1000 });
    const { connection, frames } = app(1);
    call(connection);
    connection.open = false;
    clock.advance(1000);
    await turn();
    expect(frames).toEqual([]);
    expect(log.has("relay call failed")).toBe(true);
  });

  it("answers server_unavailable when no node holds the link, at once or once the cluster says so", async () => {
    const { call, deliver, log, answer, requestId } = setUp();
    const { connection, frames } = app(1);
    deliver(() => false);
    call(connection);
    expect(frames.map(reply)).toEqual([{ status: "error", response: { reason: "server_unavailable" } }]);
    expect(log.has("relay call to a server that is away")).toBe(true);
    let settle!: (sent: boolean) => void;
    deliver(() => new Promise<boolean>((resolve) => (settle = resolve)));
    call(connection);
    expect(frames).toHaveLength(1);
    settle(false);
    await turn();
    expect(frames.map(reply)[1]).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    deliver(() => Promise.resolve(true));
    call(connection);
    await turn();
    expect(frames).toHaveLength(2);
    expect(answer({ request_id: requestId(), status: 204, body: null })).toBe(true);
    expect(frames).toHaveLength(3);
  });

  it("lets a call that timed out stay ended when the cluster later says its server was away (no throw)", async () => {
    const { call, deliver, clock } = setUp({ timeoutMs: 1000 });
    const { connection, frames } = app(1);
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      let settle!: (sent: boolean) => void;
      deliver(() => new Promise<boolean>((resolve) => (settle = resolve)));
      call(connection);
      clock.advance(1000);
      await turn();
      settle(false);
      await turn();
      await turn();
    } finally {
      process.off("unhandledRejection", onRejection);
    }
    expect(frames.map(reply)).toEqual([{ status: "error", response: { reason: "timeout" } }]);
    expect(rejections).toEqual([]);
  });

  it("fails every call to a server whose channel ended, and only that server's", () => {
    const { call, relayer, grants, answer, requestId, server } = setUp();
    grants.set("srv2", new Map([["hash1", "dev2"]]));
    const { connection, frames } = app(1);
    call(connection);
    call(connection);
    const other = app(1);
    const pushed: Frame = {
      joinRef: "1",
      ref: "9",
      topic: "events:server:srv2",
      event: "api",
      payload: { method: "GET", path: "/sessions" },
    };
    relayer.forward(other.connection, server("srv2"), pushed);
    const srv2Call = requestId();
    relayer.serverGone("srv1");
    expect(frames.map(reply)).toEqual([
      { status: "error", response: { reason: "server_unavailable" } },
      { status: "error", response: { reason: "server_unavailable" } },
    ]);
    expect(other.frames).toEqual([]);
    expect(answer({ request_id: srv2Call, status: 200, body: {} }, "srv2")).toBe(true);
    expect(other.frames).toHaveLength(1);
  });

  it("drops a gone app's calls without answering, frees their slots, and keeps another app's", async () => {
    const { call, relayer, answer, requestId, clock, sent } = setUp({ inFlightPerSocket: 1, timeoutMs: 1000 });
    const gone = app(1);
    const stays = app(4, "hash1");
    call(gone.connection);
    const goneCall = requestId();
    call(stays.connection);
    const staysCall = requestId();
    relayer.appGone(gone.connection);
    clock.advance(1000);
    await turn();
    expect(gone.frames).toEqual([]);
    expect(answer({ request_id: goneCall, status: 200, body: {} })).toBe(false);
    expect(stays.frames.map(reply)).toEqual([{ status: "error", response: { reason: "timeout" } }]);
    expect(answer({ request_id: staysCall, status: 200, body: {} })).toBe(false);
    call(gone.connection);
    expect(sent).toHaveLength(3);
  });
});
