// docs/server.md "Route contracts" (invariant 4): a JSON body holding a string that is not well-formed Unicode (a lone
// surrogate, `"\ud800"` in JSON), as a value or a key, is refused on every route with 400 invalid_input naming its
// path, and nothing is stored; over HTTP to a listening server, relayed through the bridge's in-process path, and
// sealed end to end. A surrogate pair (an emoji), escaped or as UTF-8, passes and is stored as sent. A relayed path
// holding a lone surrogate is refused before it runs. Under generated JSON values (surrogate halves mixed with other
// characters, so they sometimes pair up), a body is refused exactly when one of its strings or keys is not
// well-formed, and the refusal names one that is not.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, openResponse, sealRequest, type Sealed } from "../../client/wire/crypto/index.ts";
import { E2E_RELAY_PATH } from "../../client/wire/e2e.ts";
import { runRelayedCall } from "../../server/forwarder/api-relay.ts";
import { firstIllFormedString, illFormedStringsRefusal } from "../../server/http/well-formed-text.ts";
import { itHolds } from "../support/properties.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let baseUrl: string;
let device: { device_id: string; device_token: string };
let keys: { publicKey: string; secretKey: string };
let sessionId: string;

beforeAll(async () => {
  server = await startTestServer();
  baseUrl = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  keys = generateKeyPair();
  const { pairing } = server.runtime.ctx;
  const paired = pairing.redeem(pairing.createCode().code, "phone", keys.publicKey);
  if (!paired.ok) throw new Error(paired.reason);
  device = paired;
  sessionId = (await server.request({ method: "POST", url: "/sessions", payload: {}, token: device.device_token })).json
    .session.id;
});
afterAll(() => server.close());

interface Case {
  name: string;
  method: "POST" | "PATCH";
  path: () => string;
  body: Record<string, unknown>;
  /** The path the refusal names. */
  bad: string;
}

const CASES: Case[] = [
  {
    name: "a message",
    method: "POST",
    path: () => `/sessions/${sessionId}/messages`,
    body: { role: "user", content: "hi \ud800 there" },
    bad: "body.content",
  },
  {
    name: "a prompt title",
    method: "POST",
    path: () => "/prompts",
    body: { title: "t\udfff", text: "x" },
    bad: "body.title",
  },
  {
    name: "a device name",
    method: "PATCH",
    path: () => "/devices/self",
    body: { name: "\udc00phone" },
    bad: "body.name",
  },
  {
    name: "an upload name",
    method: "POST",
    path: () => "/uploads",
    body: { kind: "document", name: "a\ud800.txt", content_type: "text/plain", bytes: 10 },
    bad: "body.name",
  },
  {
    name: "a document's upload (a route that parses its own small JSON)",
    method: "POST",
    path: () => "/documents",
    body: { upload_id: "upl_\ud800" },
    bad: "body.upload_id",
  },
  {
    name: "an object key",
    method: "POST",
    path: () => `/sessions/${sessionId}/messages`,
    body: { role: "user", content: "hi", metadata: { ok: "fine", ["k\ud800"]: 1 } },
    bad: "body.metadata.k\ufffd",
  },
  {
    name: "a pair in the wrong order, deep in an array",
    method: "POST",
    path: () => `/sessions/${sessionId}/messages`,
    body: { role: "user", content: "hi", metadata: { list: ["a", { deep: "\udc00\ud800" }] } },
    bad: "body.metadata.list.1.deep",
  },
];

/** A call over HTTP to the listening server, the body as JSON text (JSON.stringify escapes a lone surrogate). */
async function overHttp(method: string, path: string, text: string) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "authorization": `Bearer ${device.device_token}`, "content-type": "application/json" },
    body: text,
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function relayed(method: Case["method"], path: string, body: unknown) {
  const answer = await runRelayedCall(server.runtime.ctx, server.runtime.app, {
    request_id: `r-${Math.random()}`,
    device_id: device.device_id,
    method,
    path,
    body,
  });
  const result = answer as { status: number; body: { json: string } };
  return { status: result.status, json: JSON.parse(result.body.json) as any };
}

let sealedCalls = 0;
async function sealed(method: Case["method"], path: string, body: unknown) {
  const { ctx, app } = server.runtime;
  const key = ctx.e2e.relayKey(keys.publicKey);
  const id = `sealed-call-${String(++sealedCalls).padStart(12, "0")}`;
  const call = JSON.stringify({ id, ts: Date.now(), method, path, body });
  const answer = await runRelayedCall(ctx, app, {
    request_id: id,
    device_id: device.device_id,
    method: "POST",
    path: E2E_RELAY_PATH,
    body: sealRequest(key, ctx.serverId, device.device_id, call),
  });
  const box = (answer as { body: { sealed: Sealed } }).body.sealed;
  const opened = JSON.parse(openResponse(key, ctx.serverId, device.device_id, id, box)) as any;
  return { status: opened.status as number, json: opened.body };
}

function expectRefused(answer: { status: number; json: any }, bad: string) {
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  expect(answer.json.error.code).toBe("invalid_input");
  expect(answer.json.error.details).toEqual([{ path: bad, message: expect.stringContaining("lone surrogate") }]);
  expect(answer.json.error.message).toContain(bad);
}

async function promptTitles(): Promise<string[]> {
  const answer = await server.request({ method: "GET", url: "/prompts", token: device.device_token });
  return answer.json.prompts.map((prompt: { title: string }) => prompt.title);
}

describe("strings that are not well-formed Unicode", () => {
  for (const { name, method, path, body, bad } of CASES) {
    it(`refuse ${name} over HTTP, relayed and sealed`, async () => {
      expectRefused(await overHttp(method, path(), JSON.stringify(body)), bad);
      expectRefused(await relayed(method, path(), body), bad);
      expectRefused(await sealed(method, path(), body), bad);
    });
  }

  it("store nothing when refused", async () => {
    const before = await promptTitles();
    await overHttp("POST", "/prompts", JSON.stringify({ title: "lone \ud800", text: "x" }));
    expect(await promptTitles()).toEqual(before);
  });

  it("let a surrogate pair through, escaped or as UTF-8, and store it as sent", async () => {
    const escaped = '{"title":"smile \\ud83d\\ude00","text":"\\ud83d\\ude00 and \\\\ud800 as text"}';
    const created = await overHttp("POST", "/prompts", escaped);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.prompt.text).toBe("😀 and \\ud800 as text");
    const raw = await overHttp("POST", "/prompts", JSON.stringify({ title: "raw 😀", text: "x" }));
    expect(raw.status).toBe(201);
    const viaRelay = await relayed("PATCH", "/devices/self", { name: "phone 😀" });
    expect(viaRelay.status).toBe(200);
    const viaSealed = await sealed("POST", "/prompts", { title: "sealed 😀", text: "x" });
    expect(viaSealed.status).toBe(201);
    expect(await promptTitles()).toEqual(expect.arrayContaining(["smile 😀", "raw 😀", "sealed 😀"]));
  });

  it("never come from raw bytes: a surrogate's UTF-8 encoding is decoded to U+FFFD, stored as answered", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"title":"raw '),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('","text":"x"}'),
    ]);
    const response = await fetch(`${baseUrl}/prompts`, {
      method: "POST",
      headers: { "authorization": `Bearer ${device.device_token}`, "content-type": "application/json" },
      body: bytes,
    });
    expect(response.status).toBe(201);
    const { prompt } = (await response.json()) as { prompt: { title: string } };
    expect(prompt.title).toMatch(/^raw \ufffd+$/);
    expect(await promptTitles()).toContain(prompt.title);
  });

  it("refuse a relayed path holding one before it runs; percent-encoded over HTTP it never makes one", async () => {
    const answer = await runRelayedCall(server.runtime.ctx, server.runtime.app, {
      request_id: "lone-path",
      device_id: device.device_id,
      method: "GET",
      path: "/search?q=\ud800",
    });
    expect(answer).toEqual({ request_id: "lone-path", reason: "invalid_request" });
    // The UTF-8 encoding of a surrogate (ED A0 80) is no UTF-8: the path refuses it, the query keeps it as text.
    const inPath = await fetch(`${baseUrl}/prompts/%ED%A0%80`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${device.device_token}` },
    });
    expect(inPath.status).toBe(400);
    expect(((await inPath.json()) as any).error.code).toBe("invalid_url");
  });
});

/** String.prototype.isWellFormed (Node 20; not yet in the project's TypeScript lib): the oracle. */
const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

function everyStringWellFormed(value: unknown): boolean {
  if (typeof value === "string") return wellFormed(value);
  if (value === null || typeof value !== "object") return true;
  return Object.entries(value).every(([key, child]) => wellFormed(key) && everyStringWellFormed(child));
}

/** The string a path names: the value it leads to, or the key it ends with (written with U+FFFD for its halves). */
function atPath(value: unknown, path: string[]): unknown {
  let item = value as Record<string, unknown>;
  for (const [index, key] of path.entries()) {
    if (index === path.length - 1 && !(key in item)) return key;
    item = item[key] as Record<string, unknown>;
  }
  return item;
}

describe("the check under generated JSON", () => {
  const unit = fc.constantFrom("a", "é", " ", "\\", '"', "😀", "\ud83d", "\ude00", "\udbff", "\udc00");
  itHolds(
    "refuses exactly the values with a string or key that is not well-formed, and names one",
    fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 4 }), (value) => {
      const refusal = illFormedStringsRefusal(JSON.stringify(value), value);
      expect(refusal === undefined).toBe(everyStringWellFormed(value));
      const path = firstIllFormedString(value);
      if (path === undefined) return;
      const named = atPath(value, path);
      expect(typeof named === "string" && (!wellFormed(named) || named.includes("\ufffd"))).toBe(true);
    }),
    { runs: 300, ms: 5000 },
  );
});

describe("the walk over a hostile body", () => {
  it("looks at one child at a time, holding a frame per level, not every string of the body at once", () => {
    // 62 arrays deep, then a million strings, the bad one first: a walk that queued every child before looking at
    // any (and a path per child) ran a 13 MB body of such strings out of heap. This one reads the bad string and stops.
    let reads = 0;
    const strings = new Proxy(["\ud800", ...Array.from({ length: 1_000_000 }, () => "")], {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    let nested: unknown = strings;
    for (let level = 0; level < 62; level++) nested = [nested];
    const path = firstIllFormedString(nested);
    expect(path).toEqual([...Array.from({ length: 62 }, () => "0"), "0"]);
    expect(reads).toBeLessThan(10);
  });

  it("finds a bad string after half a million good ones, 62 deep, with its path", () => {
    const strings = Array.from({ length: 500_000 }, () => "");
    strings.push({ ["ok"]: "\udc00" } as never);
    let nested: unknown = strings;
    for (let level = 0; level < 62; level++) nested = [nested];
    expect(firstIllFormedString(nested)).toEqual([...Array.from({ length: 62 }, () => "0"), "500000", "ok"]);
  });
});
