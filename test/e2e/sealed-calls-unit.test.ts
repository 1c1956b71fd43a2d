// A sealed relayed call on its own (server/e2e/sealed-calls.ts runSealedCall), without a server or a bridge: the
// server's real end-to-end keys and replay guard, a device key pair, and a recording stand-in for the forwarder's
// in-process run. Who may send one, each refusal (not a device with a key, not a sealed body, does not open, holds no
// valid call, wraps another sealed call, replayed, stale) with its code, count and log line and without running
// anything, the call run as the device once its floor is written, and the answer sealed to the call's id (cut to
// too_large when sealing makes it too big for a bridge frame). The calls of one event-loop turn (S61-S63): one floor
// write for all, run in the order they came, a lone call held one turn and no more, one call's failure (refused,
// replayed, its route or its sealing) leaving the others answered, a failed write running none. Fast on purpose: mutation testing runs these for
// every mutant of the file (docs/testing.md "Mutation score"); test/e2e/tampering.test.ts drives the same over a
// real stack.
import { describe, expect, it } from "vitest";
import {
  cipherInUse,
  generateKeyPair,
  openResponse,
  randomInUse,
  sealRequest,
  sharedKey,
  type KeyPair,
  type Sealed,
} from "../../client/wire/crypto/index.ts";
import { RELAY_MAX_BODY_BYTES, type ApiRequest, type ApiResult } from "../../client/wire/frames.ts";
import type { ServerContext } from "../../server/context.ts";
import { Audiences } from "../../server/e2e/audiences.ts";
import { ContentKeys } from "../../server/e2e/content-keys.ts";
import { EndToEnd } from "../../server/e2e/end-to-end.ts";
import { ReplayGuard } from "../../server/e2e/replay-guard.ts";
import { runSealedCall, SealedJson } from "../../server/e2e/sealed-calls.ts";
import { PairingService } from "../../server/pairing/pairing-service.ts";
import { useTempDatabases } from "../support/temp-database.ts";

const freshDatabase = useTempDatabases();

let ids = 0;
const callId = () => `call_${String(++ids).padStart(12, "0")}`;

function setUp(
  options: { storedFloor?: number; answer?: (call: ApiRequest) => ApiResult; saveFails?: () => boolean } = {},
) {
  const { db } = freshDatabase();
  const order: string[] = [];
  const guard = new ReplayGuard({
    load: () => options.storedFloor ?? 0,
    saveAll: (floors) => {
      if (options.saveFails?.()) throw new Error("disk full");
      order.push(`saved ${[...floors.values()].join(",")}`);
    },
  });
  const server = generateKeyPair();
  const e2e = new EndToEnd(
    "srv_1",
    server,
    new ContentKeys(db, () => 0),
    new Audiences(db, { audienceOf: () => null }),
    guard,
    false,
  );
  const device = generateKeyPair();
  // Paired for real: one device with its public key, one plain.
  const pairing = new PairingService(db, () => 0);
  const pair = (publicKey?: string) => {
    const result = pairing.redeem(pairing.createCode().code, "phone", publicKey);
    if (!result.ok) throw new Error(result.reason);
    return result.device_id;
  };
  const deviceId = pair(device.publicKey);
  const plainId = pair();
  const warnings: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const ctx = {
    serverId: "srv_1",
    e2e,
    pairing,
    log: { warn: (fields: Record<string, unknown>, msg: string) => warnings.push({ fields, msg }) },
  } as unknown as ServerContext;
  const ran: ApiRequest[] = [];
  // Event-loop turns counted by a ticker (turns()): the turn each call ran in.
  const runTurns: number[] = [];
  const run = async (call: ApiRequest): Promise<ApiResult> => {
    order.push(`ran ${call.request_id}`);
    runTurns.push(turns);
    ran.push(call);
    return options.answer?.(call) ?? { request_id: call.request_id, status: 201, body: { made: call.path } };
  };
  const key = relayKey(device, server);
  const seal = (inner: unknown, sealingKey = key, sealedFor = deviceId) =>
    sealRequest(sealingKey, "srv_1", sealedFor, typeof inner === "string" ? inner : JSON.stringify(inner));
  const sendAs = (deviceId: string | undefined, body: unknown) => runSealedCall(ctx, run, deviceId, body);
  const send = (body: unknown) => sendAs(deviceId, body);
  const openAnswer = (id: string, body: unknown) =>
    JSON.parse(openResponse(key, "srv_1", deviceId, id, (body as SealedJson).sealed)) as Record<string, unknown>;
  return { e2e, ran, runTurns, order, warnings, seal, send, sendAs, openAnswer, deviceId, plainId };
}

/** Counts the event loop's check phases from now (a setImmediate chain) until `stop()`: `turns` is the count so far. */
let turns = 0;
function countTurns(): { stop(): void } {
  turns = 0;
  let counting = true;
  const tick = () => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => void (counting = false) };
}

function relayKey(device: KeyPair, server: KeyPair): Uint8Array {
  return sharedKey(device.secretKey, server.publicKey, "relay", server.publicKey, device.publicKey);
}

const call = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  ts: 1_000,
  method: "POST",
  path: "/sessions",
  body: { title: "x" },
  ...extra,
});
const error = (code: string, message: string) => ({ error: { code, message } });

describe("a sealed relayed call", () => {
  it("is opened and sealed with OpenSSL's cipher and pooled random bytes (end-to-end.ts picks both)", () => {
    expect(cipherInUse()).toBe("openssl");
    expect(randomInUse()).toBe("pooled");
  });

  it("runs as its device once its floor is written, answered sealed to its id without the request id", async () => {
    const { send, seal, ran, order, openAnswer, e2e, deviceId } = setUp();
    const id = callId();
    const answer = await send(seal(call(id)));
    expect(ran).toEqual([
      { request_id: id, device_id: deviceId, method: "POST", path: "/sessions", body: { title: "x" } },
    ]);
    expect(order).toEqual(["saved 1000", `ran ${id}`]);
    expect(answer.status).toBe(200);
    expect(answer.body).toBeInstanceOf(SealedJson);
    // Spliced into the bridge frame as its text, served over HTTP as the object: both are the sealed object's JSON.
    const sealed = (answer.body as SealedJson).sealed;
    expect((answer.body as SealedJson).json).toBe(JSON.stringify(sealed));
    expect(JSON.stringify(answer.body)).toBe(JSON.stringify(sealed));
    expect(openAnswer(id, answer.body)).toEqual({ status: 201, body: { made: "/sessions" } });
    expect(e2e.rejections).toEqual({ tampered: 0, replayed: 0, stale: 0 });
  });

  it("without a body runs without one", async () => {
    const { send, seal, ran } = setUp();
    await send(seal({ id: callId(), ts: 5, method: "GET", path: "/sessions" }));
    expect(ran[0]).not.toHaveProperty("body");
    expect(ran[0]).toMatchObject({ method: "GET", path: "/sessions" });
  });

  it("is refused to a caller that is not a device paired with a key, and nothing runs", async () => {
    const { sendAs, seal, ran, plainId } = setUp();
    for (const caller of [undefined, plainId, "dev_unknown"]) {
      const answer = await sendAs(caller, seal(call(callId())));
      expect(answer).toEqual({
        status: 403,
        body: error("not_e2e_device", "this route is for devices paired with a public key"),
      });
    }
    expect(ran).toEqual([]);
  });

  it("is refused when the body is not {nonce, ciphertext}", async () => {
    const { send, ran, e2e } = setUp();
    for (const body of [undefined, "text", { nonce: "AAAA" }, { ciphertext: "AAAA" }]) {
      const answer = await send(body);
      expect(answer).toEqual({
        status: 400,
        body: error("sealed_request_invalid", "the body is not {nonce, ciphertext}"),
      });
    }
    expect(ran).toEqual([]);
    expect(e2e.rejections.tampered).toBe(0);
  });

  it("that does not open, holds no valid call or wraps another sealed call is refused, counted and logged", async () => {
    const { send, seal, ran, e2e, warnings, deviceId } = setUp();
    const id = callId();
    const fine = seal(call(id));
    const flipped: Sealed = {
      ...fine,
      ciphertext: (fine.ciphertext[0] === "A" ? "B" : "A") + fine.ciphertext.slice(1),
    };
    const refused = [
      flipped,
      seal(call(callId()), new Uint8Array(32)),
      seal(call(callId()), undefined, "dev_other"),
      seal("not json"),
      seal({ ...call(callId()), extra: 1 }),
      seal(call(callId(), { path: "sessions" })),
      seal(call(callId(), { path: "/e2e/relay" })),
      seal(call(callId(), { path: "/e2e/relay?x=1" })),
    ];
    for (const body of refused) {
      const answer = await send(body);
      expect(answer).toEqual({
        status: 400,
        body: error("sealed_request_invalid", "the sealed call does not open or holds no valid call"),
      });
    }
    expect(ran).toEqual([]);
    expect(e2e.rejections).toEqual({ tampered: refused.length, replayed: 0, stale: 0 });
    expect(warnings).toHaveLength(refused.length);
    expect(warnings[0]).toEqual({
      fields: { device_id: deviceId },
      msg: "sealed relayed call does not open or holds no valid call",
    });
    // The untouched call still runs: it was never taken as run.
    expect((await send(fine)).status).toBe(200);
    expect(ran.map((run) => run.request_id)).toEqual([id]);
  });

  it("already run is refused 409 sealed_request_replayed, counted and logged, and not run again", async () => {
    const { send, seal, ran, e2e, warnings, deviceId } = setUp();
    const sealed = seal(call(callId()));
    await send(sealed);
    const again = await send(sealed);
    expect(again).toEqual({ status: 409, body: error("sealed_request_replayed", "this sealed call was already run") });
    expect(ran).toHaveLength(1);
    expect(e2e.rejections).toEqual({ tampered: 0, replayed: 1, stale: 0 });
    expect(warnings).toEqual([
      { fields: { device_id: deviceId, verdict: "replayed" }, msg: "sealed relayed call refused" },
    ]);
  });

  it("older than the device's floor is refused as stale, counted and logged, and not run", async () => {
    const { send, seal, ran, e2e, warnings, deviceId } = setUp({ storedFloor: 2_000 });
    const answer = await send(seal(call(callId(), { ts: 2_000 })));
    expect(answer).toEqual({
      status: 400,
      body: error(
        "sealed_request_invalid",
        "the sealed call is stale: older than the device's calls the server remembers",
      ),
    });
    expect(ran).toEqual([]);
    expect(e2e.rejections).toEqual({ tampered: 0, replayed: 0, stale: 1 });
    expect(warnings).toEqual([
      { fields: { device_id: deviceId, verdict: "stale" }, msg: "sealed relayed call refused" },
    ]);
  });

  it("whose sealed answer would not fit a bridge frame is answered too_large, sealed, and logged", async () => {
    // Fits in clear (under the bound), not once sealed (base64 adds a third).
    const big = "x".repeat(Math.floor(RELAY_MAX_BODY_BYTES * 0.9));
    const { send, seal, openAnswer, warnings, deviceId } = setUp({
      answer: (run) => ({ request_id: run.request_id, status: 200, body: big }),
    });
    const id = callId();
    const answer = await send(seal(call(id)));
    expect(answer.status).toBe(200);
    expect(openAnswer(id, answer.body)).toEqual({ reason: "too_large" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toBe("sealed relayed answer too large for a bridge frame");
    expect(warnings[0]!.fields).toEqual({ device_id: deviceId, bytes: expect.any(Number) });
    expect(warnings[0]!.fields.bytes).toBeGreaterThan(RELAY_MAX_BODY_BYTES);
  });

  it("whose sealed answer fills a bridge frame exactly is sent whole; one byte more is too_large", async () => {
    // The sealed text of {"status":200,"body":"x…"} is base64url of its bytes and a 16-byte tag; the frame holds it
    // with its envelope (100 bytes) up to RELAY_MAX_BODY_BYTES.
    const envelope = 100;
    const jsonAround = JSON.stringify({ status: 200, body: "" }).length;
    const fills = (3 * (RELAY_MAX_BODY_BYTES - envelope)) / 4 - 16 - jsonAround;
    expect(Number.isInteger(fills)).toBe(true);
    for (const [extra, whole] of [
      [0, true],
      [1, false],
    ] as const) {
      const body = "x".repeat(fills + extra);
      const { send, seal, openAnswer } = setUp({
        answer: (run) => ({ request_id: run.request_id, status: 200, body }),
      });
      const id = callId();
      const answer = await send(seal(call(id)));
      const sealed = (answer.body as SealedJson).sealed;
      if (whole) expect(sealed.ciphertext.length).toBe(RELAY_MAX_BODY_BYTES - envelope);
      expect(openAnswer(id, answer.body)).toEqual(whole ? { status: 200, body } : { reason: "too_large" });
    }
  });
});

describe("the sealed calls of one event-loop turn", () => {
  it("S61: are checked as they come, their floors written once at the turn's end, then run in the order they came", async () => {
    const { send, seal, order, ran, warnings } = setUp();
    const [a, b, c] = [callId(), callId(), callId()];
    const tampered = { ...seal(call(callId())), nonce: seal(call(callId())).nonce };
    const answers = [
      send(seal(call(a, { ts: 3_000 }))),
      send(tampered),
      send(seal(call(b, { ts: 1_000 }))),
      send(seal(call(c, { ts: 2_000 }))),
    ];
    // Opened and checked at once (the tampered one is refused), but nothing is written or run in the calls' own turn.
    expect(warnings).toHaveLength(1);
    expect(order).toEqual([]);
    expect(ran).toEqual([]);
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    expect(statuses).toEqual([200, 400, 200, 200]);
    expect(order).toEqual(["saved 3000", `ran ${a}`, `ran ${b}`, `ran ${c}`]);
  });

  it("S62: a lone call waits one turn, for its floor's write, and is answered sealed in that turn", async () => {
    const { send, seal, runTurns, openAnswer } = setUp();
    const ticker = countTurns();
    const id = callId();
    const answer = await send(seal(call(id)));
    const answeredAt = turns;
    ticker.stop();
    expect(runTurns).toEqual([1]);
    expect(answeredAt).toBe(1);
    expect(openAnswer(id, answer.body)).toEqual({ status: 201, body: { made: "/sessions" } });
  });

  it("S63: a call refused, replayed, or failing in its route or its sealing leaves the others of its turn answered", async () => {
    const { send, seal, ran, openAnswer, e2e } = setUp({
      answer: (run) => {
        if (run.path === "/boom") throw new Error("route failed");
        // A body JSON cannot write: sealing this answer throws.
        if (run.path === "/unsealable") return { request_id: run.request_id, status: 200, body: 1n };
        return { request_id: run.request_id, status: 201, body: { made: run.path } };
      },
    });
    const [first, boom, unsealable, last] = [callId(), callId(), callId(), callId()];
    const sealedFirst = seal(call(first));
    const answers = await Promise.allSettled([
      send(sealedFirst),
      send(seal(call(boom, { path: "/boom" }))),
      send(sealedFirst),
      send(seal(call(unsealable, { path: "/unsealable" }))),
      send({ nonce: "AAAA" }),
      send(seal(call(last, { ts: 2_000 }))),
    ]);
    const [okFirst, failed, replayed, unsealed, invalid, okLast] = answers;
    expect(okFirst.status === "fulfilled" && openAnswer(first, okFirst.value.body)).toEqual({
      status: 201,
      body: { made: "/sessions" },
    });
    expect(failed).toMatchObject({ status: "rejected", reason: new Error("route failed") });
    expect(replayed).toMatchObject({ status: "fulfilled", value: { status: 409 } });
    expect(unsealed).toMatchObject({ status: "rejected", reason: expect.any(TypeError) });
    expect(invalid).toMatchObject({ status: "fulfilled", value: { status: 400 } });
    expect(okLast.status === "fulfilled" && openAnswer(last, okLast.value.body)).toEqual({
      status: 201,
      body: { made: "/sessions" },
    });
    // Each call checked once: the copy of the first in the same turn is the replay, and never ran.
    expect(ran.map((run) => run.request_id)).toEqual([first, boom, unsealable, last]);
    expect(e2e.rejections).toEqual({ tampered: 0, replayed: 1, stale: 0 });
  });

  it("S63: when the floors' write fails, none of that turn's calls runs; the next turn's run", async () => {
    let failures = 1;
    const { send, seal, ran } = setUp({ saveFails: () => failures-- > 0 });
    const [a, b, c] = [callId(), callId(), callId()];
    const firstTurn = await Promise.allSettled([send(seal(call(a))), send(seal(call(b, { ts: 1_001 })))]);
    expect(firstTurn.map((answer) => answer.status)).toEqual(["rejected", "rejected"]);
    expect(ran).toEqual([]);
    expect((await send(seal(call(c, { ts: 1_002 })))).status).toBe(200);
    expect(ran.map((run) => run.request_id)).toEqual([c]);
  });
});
