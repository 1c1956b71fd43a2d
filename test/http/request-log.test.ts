// One log line per HTTP request, none at info for a CORS preflight (issue 12 item 6; docs/bridge.md "Logging").
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, expect, it } from "vitest";
import { PREFLIGHT, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer | undefined;
afterEach(() => server?.close());

async function loggingServer() {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      records.push(JSON.parse(String(chunk)));
      done();
    },
  });
  server = await startTestServer({}, { log: pino({ level: "info" }, stream) });
  records.length = 0;
  return { server, records };
}

it("writes one line per request: method, url, status and time taken", async () => {
  const { server, records } = await loggingServer();
  expect((await server.request({ method: "GET", url: "/health" })).status).toBe(200);
  expect(records).toEqual([
    expect.objectContaining({
      level: 30,
      msg: "request completed",
      method: "GET",
      url: "/health",
      statusCode: 200,
      responseTime: expect.any(Number),
    }),
  ]);
});

it("writes no line at info for a CORS preflight", async () => {
  const { server, records } = await loggingServer();
  const preflight = await server.request(PREFLIGHT);
  expect(preflight.status).toBe(204);
  expect(records).toEqual([]);
  // ...while the request it announced is logged.
  expect(
    (await server.request({ method: "GET", url: "/sessions", headers: { origin: "http://app.example" } })).status,
  ).toBe(200);
  expect(records.map((record) => [record.method, record.url, record.statusCode])).toEqual([["GET", "/sessions", 200]]);
});
