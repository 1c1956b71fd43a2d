// Share links on the server (docs/people.md "Share links", invariants L1-L9): made, listed and revoked by the owner
// only, at most 20 live, expiring on the clock, ended by deletion, transfer and removal, answered alike when gone,
// limited per address, and stored sealed: no file of the data folder holds the chat's words readable.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { openSharedBlob, openSharedLink, parseSharedLink, SharedLinkError } from "../../client/sharing/open-link.ts";
import { TestClock } from "../notifications/helpers.ts";
import { chatOf, startHousehold, type Household } from "../people/support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

async function start(): Promise<{ h: Household; clock: TestClock }> {
  const clock = new TestClock();
  const h = closing.own(await startHousehold({}, { clock }));
  return { h, clock };
}

type Call = { status: number; json: any; text: string };

function links(h: Household, token: string, chat: string, method: "POST" | "GET", payload?: object): Promise<Call> {
  return h.server.request({ method, url: `/sessions/${chat}/share-links`, token, ...(payload ? { payload } : {}) });
}

function shared(h: Household, token: string, address = "10.0.0.1"): Promise<Call> {
  return h.server.request({ method: "GET", url: `/shared/${token}`, token: null, remoteAddress: address });
}

async function makeLink(
  h: Household,
  chat: string,
  payload: object = {},
): Promise<{ url: string; token: string; expires_at: string }> {
  const made = await links(h, h.admin.e2e.token, chat, "POST", payload);
  expect(made.status, made.text).toBe(201);
  return made.json;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

it("L1: the owner makes a link whose fragment key opens the blob GET /shared answers; the token has 128 bits", async () => {
  const { h, clock } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "TRIP-PLAN-SECRET-WORDS");
  const made = await makeLink(h, chat);
  expect(made.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(Buffer.from(made.token, "base64url")).toHaveLength(16);
  expect(made.url).toMatch(new RegExp(`#/shared/${made.token}\\.[A-Za-z0-9_-]{43}$`));
  expect(Date.parse(made.expires_at) - clock.now()).toBe(7 * 24 * 3600 * 1000);
  const blob = await shared(h, made.token);
  expect(blob.status).toBe(200);
  expect(blob.text).not.toContain("TRIP-PLAN");
  const snapshot = openSharedBlob(parseSharedLink(made.url)!, blob.json);
  expect(snapshot.messages).toEqual([{ role: "user", content: "TRIP-PLAN-SECRET-WORDS" }]);
  expect(snapshot.owner_name).toBe("Owner");
  const listed = await links(h, h.admin.e2e.token, chat, "GET");
  expect(listed.json.links).toEqual([
    { token: made.token, created_at: expect.any(String), expires_at: made.expires_at },
  ]);
});

it("L2: the stored row holds the snapshot sealed (no words of the chat), and no file of the data folder holds the key", async () => {
  const { h } = await start();
  const marker = "ZEBRA-LINK-PLAINTEXT-7731";
  const chat = await chatOf(h.server, h.admin.e2e.token, marker);
  const made = await makeLink(h, chat);
  const rows = h.server.runtime.ctx.db.prepare("SELECT blob FROM share_links WHERE token = ?").all(made.token) as {
    blob: string;
  }[];
  expect(rows).toHaveLength(1);
  expect(rows[0]!.blob).not.toContain(marker);
  expect(JSON.parse(rows[0]!.blob)).toEqual({ v: 1, nonce: expect.any(String), ciphertext: expect.any(String) });
  // The WAL folded into the database file, through the checkpointer as the server does it: a TRUNCATE on the main
  // connection races the worker's own timed checkpoint for SQLite's checkpoint lock (D8 failed so under load).
  await h.server.runtime.ctx.checkpoints.truncate();
  const key = made.url.split(".").pop()!;
  const files = filesUnder(h.server.dataDir);
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) expect(readFileSync(file).includes(key), file).toBe(false);
});

it("L3: only the owner makes, lists and revokes links: a share holder is 403 share_access_denied, anyone else 404", async () => {
  const { h } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "owned");
  await h.server.request({
    method: "POST",
    url: `/sessions/${chat}/shares`,
    token: h.admin.e2e.token,
    payload: { person_id: h.adult.id, access: "write" },
  });
  const made = await makeLink(h, chat);
  for (const [token, status, code] of [
    [h.adult.e2e.token, 403, "share_access_denied"],
    [h.child.e2e.token, 404, "session_not_found"],
  ] as const) {
    for (const method of ["POST", "GET"] as const) {
      const refused = await links(h, token, chat, method, method === "POST" ? {} : undefined);
      expect([refused.status, refused.json.error.code], method).toEqual([status, code]);
    }
    const revoke = await h.server.request({
      method: "DELETE",
      url: `/sessions/${chat}/share-links/${made.token}`,
      token,
    });
    expect([revoke.status, revoke.json.error.code]).toEqual([status, code]);
  }
  expect((await shared(h, made.token)).status).toBe(200);
});

it("L4: at most 20 live links per chat (409 too_many_share_links); expiry bounds are 1 s to 90 days", async () => {
  const { h, clock } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "many");
  for (let i = 0; i < 19; i++) await makeLink(h, chat);
  const short = await makeLink(h, chat, { expires_in: 60 });
  const over = await links(h, h.admin.e2e.token, chat, "POST", {});
  expect([over.status, over.json.error.code]).toEqual([409, "too_many_share_links"]);
  clock.advance(61_000); // the short one expires: room for one more
  await makeLink(h, chat, { expires_in: 90 * 24 * 3600 });
  expect((await shared(h, short.token)).status).toBe(404);
  for (const expires_in of [0, -5, 90 * 24 * 3600 + 1, 1e300, 1.5, "60"]) {
    const bad = await links(h, h.admin.e2e.token, chat, "POST", { expires_in });
    expect([bad.status, bad.json.error.code], String(expires_in)).toEqual([400, "invalid_input"]);
  }
});

it("L5: revoked, expired, unknown and malformed tokens are the same 404 share_link_not_found body", async () => {
  const { h, clock } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "gone");
  const revoked = await makeLink(h, chat);
  const expiring = await makeLink(h, chat, { expires_in: 10 });
  const del = await h.server.request({
    method: "DELETE",
    url: `/sessions/${chat}/share-links/${revoked.token}`,
    token: h.admin.e2e.token,
  });
  expect(del.status).toBe(204);
  const again = await h.server.request({
    method: "DELETE",
    url: `/sessions/${chat}/share-links/${revoked.token}`,
    token: h.admin.e2e.token,
  });
  expect([again.status, again.json.error.code]).toEqual([404, "share_link_not_found"]);
  clock.advance(10_000);
  const bodies = new Set<string>();
  for (const token of [
    revoked.token,
    expiring.token,
    "AAAAAAAAAAAAAAAAAAAAAA",
    "not-a-token",
    "..%2F..%2Fetc",
    "%00",
  ]) {
    const answer = await shared(h, token);
    expect(answer.status, token).toBe(404);
    bodies.add(answer.text);
  }
  expect([...bodies]).toHaveLength(1);
  expect(JSON.parse([...bodies][0]!).error.code).toBe("share_link_not_found");
  expect((await links(h, h.admin.e2e.token, chat, "GET")).json.links).toEqual([]);
});

it("L6: deleting the chat, transferring it and removing its owner end its links (and their rows go)", async () => {
  const { h } = await start();
  const deleted = await chatOf(h.server, h.admin.e2e.token, "to delete");
  const deletedLink = await makeLink(h, deleted);
  expect(
    (await h.server.request({ method: "DELETE", url: `/sessions/${deleted}`, token: h.admin.e2e.token })).status,
  ).toBe(204);
  expect((await shared(h, deletedLink.token)).status).toBe(404);

  const anas = await chatOf(h.server, h.adult.e2e.token, "ana's chat");
  const kids = await chatOf(h.server, h.child.e2e.token, "kid's chat", "kids");
  const make = async (token: string, chat: string) => (await links(h, token, chat, "POST", {})).json.token as string;
  const anaLink = await make(h.adult.e2e.token, anas);
  const kidLink = await make(h.child.e2e.token, kids);
  expect((await shared(h, anaLink)).status).toBe(200);
  const transfer = await h.server.request({
    method: "DELETE",
    url: `/people/${h.adult.id}?chats=transfer&to=${h.child.id}`,
  });
  expect(transfer.status).toBe(204);
  expect((await shared(h, anaLink)).status).toBe(404);
  const removal = await h.server.request({ method: "DELETE", url: `/people/${h.child.id}?chats=delete` });
  expect(removal.status).toBe(204);
  expect((await shared(h, kidLink)).status).toBe(404);
  expect(h.server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM share_links").get()).toEqual({ n: 0 });
});

it("L7: GET /shared is limited per address (429 rate_limited with Retry-After); other addresses and /health still answer", async () => {
  const { h, clock } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "busy");
  const made = await makeLink(h, chat);
  for (let i = 0; i < 60; i++)
    expect((await shared(h, i % 2 ? made.token : "unknown-token", "10.9.9.9")).status).not.toBe(429);
  const limited = await h.server.request({
    method: "GET",
    url: `/shared/${made.token}`,
    token: null,
    remoteAddress: "10.9.9.9",
  });
  expect([limited.status, limited.json.error.code]).toEqual([429, "rate_limited"]);
  expect(Number(limited.json.error.details.retry_after)).toBeGreaterThan(0);
  expect((await shared(h, made.token, "10.8.8.8")).status).toBe(200);
  expect((await h.server.request({ method: "GET", url: "/health", token: null })).status).toBe(200);
  clock.advance(60_000);
  expect((await shared(h, made.token, "10.9.9.9")).status).toBe(200);
});

it("L8: the snapshot carries the shown messages only, stored images inlined as data URLs, and refuses over 8 MiB", async () => {
  const { h } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "look at this");
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  );
  const stored = await h.server.request({
    method: "POST",
    url: `/sessions/${chat}/extensions/reference_compatible_attachments/store_attachment`,
    token: h.admin.e2e.token,
    payload: { data_base64: png.toString("base64"), media_type: "image/png" },
  });
  expect(stored.status, stored.text).toBe(201);
  h.server.runtime.ctx.sessions.append(chat, {
    role: "user",
    content: "with a picture",
    metadata: { attachments: [{ type: "asset", asset_id: stored.json.asset_id }], usage: { secret: 1 } },
  });
  h.server.runtime.ctx.sessions.append(chat, { role: "system", content: "HIDDEN-SYSTEM-PROMPT" });
  const made = await makeLink(h, chat);
  const snapshot = openSharedBlob(parseSharedLink(made.url)!, (await shared(h, made.token)).json);
  expect(snapshot.messages.map((m) => m.content)).toEqual(["look at this", "with a picture"]);
  expect(snapshot.messages[1]!.metadata).toEqual({
    attachments: [{ type: "image_data", data_url: `data:image/png;base64,${png.toString("base64")}` }],
  });
  h.server.runtime.ctx.sessions.append(chat, { role: "assistant", content: "x".repeat(8 * 1024 * 1024) });
  const big = await links(h, h.admin.e2e.token, chat, "POST", {});
  expect([big.status, big.json.error.code, big.json.error.details]).toEqual([
    413,
    "share_snapshot_too_large",
    { max_bytes: 8 * 1024 * 1024 },
  ]);
});

it("L9: the library opens a link over loopback with no token; a revoked one rejects with share_link_not_found", async () => {
  const { h } = await start();
  const chat = await chatOf(h.server, h.admin.e2e.token, "OPENED-BY-THE-LIBRARY");
  const made = await makeLink(h, chat);
  const baseUrl = await h.server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
  const seen: Array<string | null> = [];
  const fetchSpy: typeof fetch = (input, init) => {
    seen.push(new Headers(init?.headers).get("authorization"));
    return fetch(input, init);
  };
  const snapshot = await openSharedLink(made.url, { baseUrl, fetch: fetchSpy });
  expect(snapshot.messages[0]!.content).toBe("OPENED-BY-THE-LIBRARY");
  expect(seen).toEqual([null]);
  const fragment = made.url.slice(made.url.indexOf("#"));
  expect((await openSharedLink(fragment, { baseUrl })).title).toBe("OPENED-BY-THE-LIBRARY");
  const [token, key] = [made.token, made.url.split(".").pop()!];
  const wrongKey = `${token}.${key.slice(0, -2)}${key.endsWith("AA") ? "BA" : "AA"}`;
  await expect(openSharedLink(wrongKey, { baseUrl })).rejects.toMatchObject({ code: "invalid_share_link" });
  await expect(openSharedLink("https://x/#/pair?code=1", { baseUrl })).rejects.toBeInstanceOf(SharedLinkError);
  await h.server.request({ method: "DELETE", url: `/sessions/${chat}/share-links/${token}`, token: h.admin.e2e.token });
  await expect(openSharedLink(made.url, { baseUrl })).rejects.toMatchObject({
    status: 404,
    code: "share_link_not_found",
  });
});
