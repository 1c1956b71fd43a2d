// Share links served by the bridge (docs/bridge.md "Share links", invariants BL1-BL6), over loopback: a real server
// with its SQLite file, a real bridge, the server's forwarder linking them, stock fetch and node:http as the browser.
// The bridge answers GET /shared/{token} with the server's bytes and headers, holds nothing readable, refuses a link
// as soon as the server has ended it (revoke, expiry, deletion), answers every malformed token alike without a crash,
// limits each address, and says so (503) when no server can tell.
import { mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { openSharedLink } from "../../client/sharing/open-link.ts";
import { startForwarder, type Forwarder } from "../../server/forwarder/forwarder.ts";
import { SHARE_PART_CHARS } from "../../client/wire/shared-link-frames.ts";
import { ShareAnswers } from "../../server/forwarder/share-answers.ts";
import { fakeServer, runCleanups, testBridge } from "../bridge/helpers.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { until } from "../client/support/stack.ts";
import { TestClock } from "../notifications/helpers.ts";
import { chatOf, startHousehold, type Household } from "../people/support.ts";
import { MemoryLogger } from "../support/memory-logger.ts";

interface Rig {
  h: Household;
  clock: TestClock;
  bridgeClock: ManualClock;
  bridge: RunningBridge;
  forwarder: Forwarder;
  serverUrl: string;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.forwarder.stop();
  await rig?.bridge.close();
  await rig?.h.server.close();
  rig = undefined;
  await runCleanups();
});

async function start(): Promise<Rig> {
  const clock = new TestClock();
  const h = await startHousehold({}, { clock });
  const serverUrl = await h.server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
  const bridgeClock = new ManualClock();
  const bridge = await startBridge({
    config: defaultBridgeConfig({ port: 0, dataDir: mkdtempSync(join(tmpdir(), "share-bridge-")) }),
    clock: bridgeClock,
    log: new MemoryLogger(),
    sweepEveryMs: 0,
  });
  const forwarder = startForwarder(h.server.runtime.ctx, { bridgeUrl: bridge.url, reconnectAfterMs: () => 20 });
  rig = { h, clock, bridgeClock, bridge, forwarder, serverUrl };
  await linked(rig);
  return rig;
}

function linked(r: Rig): Promise<void> {
  return until(() => r.bridge.core.registry.get(r.h.server.runtime.ctx.serverId)?.liveLink !== undefined, "linked");
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A GET with node:http from a chosen loopback address (127.0.0.1 and 127.0.0.2 are two addresses to the bridge). */
function get(url: string, localAddress = "127.0.0.1"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(url, { localAddress, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    call.on("error", reject);
    call.end();
  });
}

async function makeLink(r: Rig, chat: string): Promise<{ url: string; token: string }> {
  const made = await r.h.server.request({
    method: "POST",
    url: `/sessions/${chat}/share-links`,
    token: r.h.admin.e2e.token,
    payload: {},
  });
  expect(made.status, made.text).toBe(201);
  return made.json as { url: string; token: string };
}

function revoke(r: Rig, chat: string, token: string) {
  return r.h.server.request({
    method: "DELETE",
    url: `/sessions/${chat}/share-links/${token}`,
    token: r.h.admin.e2e.token,
  });
}

const viaBridge = (r: Rig, token: string, from?: string) => get(`${r.bridge.httpUrl}/shared/${token}`, from);
const viaServer = (r: Rig, token: string) => get(`${r.serverUrl}/shared/${token}`);
const codeOf = (answer: Answer) => (JSON.parse(answer.text) as { error: { code: string } }).error.code;

it("BL1: a link made on the server opens through the bridge: the server's bytes and headers, in parts, cached sealed", async () => {
  const r = await start();
  const marker = "OKAPI-BRIDGE-PLAINTEXT-4411";
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, marker);
  // A long answer makes a blob of several parts (SHARE_PART_CHARS each), so the bridge fetches it in pieces.
  r.h.server.runtime.ctx.sessions.append(chat, {
    role: "assistant",
    content: `${marker} ${"lorem ipsum ".repeat(150_000)}`,
  });
  const made = await makeLink(r, chat);
  const server = await viaServer(r, made.token);
  expect(server.status).toBe(200);
  expect(server.text.length).toBeGreaterThan(2 * 512 * 1024);
  for (const round of ["fetched", "cached"]) {
    const bridge = await fetch(`${r.bridge.httpUrl}/shared/${made.token}`);
    expect(bridge.status, round).toBe(200);
    expect(await bridge.text(), round).toBe(server.text);
    for (const header of ["content-type", "cache-control", "content-length"])
      expect(bridge.headers.get(header), `${round} ${header}`).toBe(server.headers[header]);
  }
  expect(server.text).not.toContain(marker);
  expect(r.bridge.sharedBlobs.cachedTexts()).toEqual([server.text]);
  for (const text of r.bridge.sharedBlobs.cachedTexts()) expect(text).not.toContain(marker);
  const snapshot = await openSharedLink(made.url, { baseUrl: r.bridge.httpUrl });
  expect(snapshot.messages.map((message) => message.content.slice(0, marker.length))).toEqual([marker, marker]);
});

it("BL2: a revoked link is 404 at the bridge as soon as the revoke call has answered, cached or not, and leaves the cache", async () => {
  const r = await start();
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, "to revoke");
  const cachedLink = await makeLink(r, chat);
  const freshLink = await makeLink(r, chat);
  expect((await viaBridge(r, cachedLink.token)).status).toBe(200);
  for (const link of [cachedLink, freshLink]) expect((await revoke(r, chat, link.token)).status).toBe(204);
  const server = await viaServer(r, cachedLink.token);
  for (const link of [cachedLink, freshLink]) {
    const bridge = await viaBridge(r, link.token);
    expect(bridge.status).toBe(404);
    expect(bridge.text).toBe(server.text);
    expect(bridge.headers["content-type"]).toBe(server.headers["content-type"]);
  }
  expect(r.bridge.sharedBlobs.cachedTexts()).toEqual([]);
});

it("BL3: an expired link (the server's clock) and a deleted chat's link are 404 at the bridge", async () => {
  const r = await start();
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, "short lived");
  const expiring = await r.h.server.request({
    method: "POST",
    url: `/sessions/${chat}/share-links`,
    token: r.h.admin.e2e.token,
    payload: { expires_in: 60 },
  });
  const doomed = await chatOf(r.h.server, r.h.admin.e2e.token, "to delete");
  const doomedLink = await makeLink(r, doomed);
  const token = (expiring.json as { token: string }).token;
  expect((await viaBridge(r, token)).status).toBe(200);
  expect((await viaBridge(r, doomedLink.token)).status).toBe(200);
  r.clock.advance(60_000);
  expect(codeOf(await viaBridge(r, token))).toBe("share_link_not_found");
  const deleted = await r.h.server.request({
    method: "DELETE",
    url: `/sessions/${doomed}`,
    token: r.h.admin.e2e.token,
  });
  expect(deleted.status).toBe(204);
  const gone = await viaBridge(r, doomedLink.token);
  expect([gone.status, codeOf(gone)]).toEqual([404, "share_link_not_found"]);
});

it("BL4: unknown, malformed and huge tokens are refused alike without a crash; /health still answers", async () => {
  const r = await start();
  const bodies = new Set<string>();
  for (const token of ["AAAAAAAAAAAAAAAAAAAAAA", "not-a-token", "..%2F..%2Fetc", "%00", "a/b", "x".repeat(5000)]) {
    const answer = await viaBridge(r, token);
    expect(answer.status, token.slice(0, 20)).toBe(404);
    bodies.add(answer.text);
  }
  expect([...bodies]).toHaveLength(1);
  expect(codeOf(await viaBridge(r, "AAAAAAAAAAAAAAAAAAAAAA"))).toBe("share_link_not_found");
  // 100 KB of path: past Node's header limit, refused before any handler (431), the connection closed.
  const huge = await viaBridge(r, "A".repeat(100_000)).catch((error: Error) => ({ status: 0, text: error.message }));
  expect([0, 431]).toContain(huge.status);
  const health = await fetch(`${r.bridge.httpUrl}/health`);
  expect(health.status).toBe(200);
});

it("BL5: a flood from one address is 429 rate_limited with Retry-After while another address still opens the link", async () => {
  const r = await start();
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, "busy");
  const made = await makeLink(r, chat);
  for (let i = 0; i < 60; i++)
    expect((await viaBridge(r, i % 2 ? made.token : "unknown", "127.0.0.1")).status).not.toBe(429);
  const limited = await viaBridge(r, made.token, "127.0.0.1");
  expect([limited.status, codeOf(limited)]).toEqual([429, "rate_limited"]);
  expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  expect((await viaBridge(r, made.token, "127.0.0.2")).status).toBe(200);
  r.bridgeClock.advance(60_000);
  expect((await viaBridge(r, made.token, "127.0.0.1")).status).toBe(200);
});

it("BL6: with no server linked the bridge answers 503 share_link_unavailable, never a cached blob", async () => {
  const r = await start();
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, "away");
  const made = await makeLink(r, chat);
  expect((await viaBridge(r, made.token)).status).toBe(200);
  await r.forwarder.stop();
  await until(() => r.bridge.core.registry.get(r.h.server.runtime.ctx.serverId)?.liveLink === undefined, "unlinked");
  for (const token of [made.token, "AAAAAAAAAAAAAAAAAAAAAA"]) {
    const away = await viaBridge(r, token);
    expect([away.status, codeOf(away)]).toEqual([503, "share_link_unavailable"]);
  }
});

it("BL7: hostile share_request and share_result frames are refused on each side; the link and the bridge go on", async () => {
  const r = await start();
  const chat = await chatOf(r.h.server, r.h.admin.e2e.token, "hostile");
  const made = await makeLink(r, chat);
  const total = (await viaServer(r, made.token)).text.length;
  // The server's side: what it answers (and does not) for each request, on a link that records.
  const sent: unknown[] = [];
  const answers = new ShareAnswers(
    r.h.server.runtime.ctx.shareLinks,
    { isOpen: () => true, send: (_event, payload) => void sent.push(payload) },
    r.h.server.runtime.ctx.log,
  );
  const id = { request_id: "r1" };
  for (const payload of [
    null,
    "text",
    {},
    { ...id, token: "short", offset: 0 },
    { ...id, token: made.token, offset: -1 },
    { ...id, token: made.token, offset: 1.5 },
    { ...id, token: made.token, offset: 0, extra: true },
    { request_id: "x".repeat(101), token: made.token, offset: 0 },
  ])
    answers.answer(payload);
  expect(sent).toEqual([]);
  answers.answer({ ...id, token: "AAAAAAAAAAAAAAAAAAAAAA", offset: 0 });
  answers.answer({ ...id, token: made.token, offset: total });
  answers.answer({ ...id, token: made.token, offset: total + 1000 });
  expect(sent).toEqual([
    { ...id, status: "not_found" },
    { ...id, status: "found", total, offset: total, text: "" },
    { ...id, status: "found", total, offset: total + 1000, text: "" },
  ]);

  // The bridge's side: a server that answers parts too long, at the wrong offset, that do not fit together, or
  // answers nobody's request. Each read is 503 and nothing is kept; an honest answer then reads fine.
  const bridge = await testBridge();
  const server = await fakeServer(bridge.url);
  const token = "BBBBBBBBBBBBBBBBBBBBBB";
  let answer: (request: { request_id: string; offset: number }) => Record<string, unknown> = () => ({});
  server.channel.on("share_request", (request: { request_id: string; offset: number }) => {
    server.channel.push("share_result", { request_id: "nobody's", status: "not_found" });
    server.channel.push("share_result", answer(request));
  });
  const part = (
    request: { request_id: string; offset: number },
    total: number,
    text: string,
    offset = request.offset,
  ) => ({ request_id: request.request_id, status: "found", total, offset, text });
  for (const hostile of [
    (request: { request_id: string; offset: number }) =>
      part(request, SHARE_PART_CHARS + 2, "x".repeat(SHARE_PART_CHARS + 1)),
    (request: { request_id: string; offset: number }) => part(request, 10, "0123456789", 5),
    (request: { request_id: string; offset: number }) => part(request, 10 + request.offset, "01234"),
    (request: { request_id: string; offset: number }) => ({ request_id: request.request_id, status: "maybe" }),
  ]) {
    answer = hostile;
    const refused = await get(`${bridge.httpUrl}/shared/${token}`);
    expect([refused.status, codeOf(refused)]).toEqual([503, "share_link_unavailable"]);
  }
  expect(bridge.sharedBlobs.cachedTexts()).toEqual([]);
  answer = (request) => part(request, 10, "0123456789".slice(request.offset, request.offset + 4));
  const honest = await get(`${bridge.httpUrl}/shared/${token}`);
  expect([honest.status, honest.text]).toEqual([200, "0123456789"]);
  expect((await fetch(`${bridge.httpUrl}/health`)).status).toBe(200);
});
