// What a listening server answers, held against the registry: each refusal carries a registered code, with a status
// the registry gives that code (client/wire/errors.ts), whichever layer raised it (the server's DomainError, Fastify's
// own refusal, Node's parser).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodySchema, isHttpErrorCode, statusesOf } from "../../client/wire/errors.ts";
import { exchange, parseResponse } from "../http/raw-http.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let base: string;
let port: number;
let deviceToken: string;
beforeAll(async () => {
  server = await startTestServer();
  base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  port = Number(new URL(base).port);
  const { code } = server.runtime.ctx.pairing.createCode();
  const redeemed = server.runtime.ctx.pairing.redeem(code, "test phone");
  if (!redeemed.ok) throw new Error(`pairing failed: ${redeemed.reason}`);
  deviceToken = redeemed.device_token;
});
afterAll(() => server.close());

/** One answer over loopback: its status and the error body's code (the body must be docs/errors.md "HTTP"'s). */
async function answer(
  path: string,
  init: RequestInit & { token?: string | null } = {},
): Promise<{ status: number; code: string }> {
  const { token = ADMIN_TOKEN, headers, ...rest } = init;
  const response = await fetch(`${base}${path}`, {
    ...rest,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  const body = errorBodySchema.parse(await response.json());
  return { status: response.status, code: body.error.code };
}

function expectRegistered({ status, code }: { status: number; code: string }, expected: string): void {
  expect(code).toBe(expected);
  expect(isHttpErrorCode(code) && statusesOf(code)).toContain(status);
}

describe("error answers against the registry", () => {
  it.each([
    ["no token", "/sessions", { token: null }, "unauthorized"],
    ["a device token on an admin route", "/producers", { token: "device" }, "forbidden"],
    ["an unknown session", "/sessions/ghost", {}, "session_not_found"],
    ["an unknown device", "/devices/ghost", { method: "DELETE" }, "device_not_found"],
    ["an unknown route", "/no/such/route", {}, "route_not_found"],
    ["an unknown query key", "/events?bogus=1", {}, "invalid_input"],
    ["another store's epoch", "/events?since_id=0&epoch=another", {}, "cursor_expired"],
    [
      "a body that is not JSON",
      "/sessions",
      { method: "POST", body: "{", headers: { "content-type": "application/json" } },
      "invalid_json",
    ],
    [
      "a body of another type",
      "/sessions",
      { method: "POST", body: "x", headers: { "content-type": "text/csv" } },
      "unsupported_media_type",
    ],
    ["a route parameter over 100 characters", `/sessions/${"x".repeat(101)}`, {}, "uri_too_long"],
  ] as const)("%s", async (_, path, init, expected) => {
    const options = init as RequestInit & { token?: string | null };
    expectRegistered(
      await answer(path, options.token === "device" ? { ...options, token: deviceToken } : options),
      expected,
    );
  });

  it("Node's parser refusals: headers over the limit", async () => {
    const raw = parseResponse(
      await exchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
    )!;
    expectRegistered(
      { status: raw.status, code: errorBodySchema.parse(JSON.parse(raw.body)).error.code },
      "headers_too_large",
    );
  });
});
