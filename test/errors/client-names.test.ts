// The library's names for a failed answer it received (ResponseError, CursorExpiredResponseError), against a listening
// server; the former names (HttpError, CursorExpiredError) stay exported as deprecated aliases, so apps' catches work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatClient,
  CursorExpiredError,
  CursorExpiredResponseError,
  HttpError,
  ResponseError,
} from "../../client/index.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => server.close());

describe("the library's error names", () => {
  it("the library receives a 410 cursor_expired as CursorExpiredResponseError, still caught by its former names", async () => {
    const client = new ChatClient({
      server_url: base,
      device_token: ADMIN_TOKEN,
      bridge_url: "ws://127.0.0.1:9/socket",
      server_id: "srv",
      device_id: "admin",
    });
    try {
      const failure = await client
        .request("GET", "/events?since_id=0&epoch=another", z.unknown())
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CursorExpiredResponseError);
      expect(failure).toBeInstanceOf(ResponseError);
      expect(failure).toBeInstanceOf(CursorExpiredError);
      expect(failure).toBeInstanceOf(HttpError);
      expect(failure).toMatchObject({ status: 410, code: "cursor_expired", name: "ResponseError" });
    } finally {
      client.close();
    }
  });
});
