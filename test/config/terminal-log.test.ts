// server/log.ts: on a terminal (pino-pretty) the per-request lines are at debug, so `npm start` shows what a person
// needs; as JSON lines (not a terminal) they stay at info for log collectors. The real app logs through it here.
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { processLog } from "../../server/log.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer | undefined;
afterEach(() => server?.close());

async function linesOf(options: { pretty: boolean; level: string }): Promise<string> {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  server = await startTestServer({}, { log: processLog({ ...options, stream }) });
  server.runtime.ctx.log.info("a line a person needs");
  expect((await server.request({ method: "GET", url: "/health" })).status).toBe(200);
  return text;
}

describe("the server's log on a terminal", () => {
  it("writes request lines at debug when pretty, and other lines at info", async () => {
    const text = await linesOf({ pretty: true, level: "info" });
    expect(text).toContain("a line a person needs");
    expect(text).not.toContain("request completed");
  });

  it("still writes them when the level is debug", async () => {
    const text = await linesOf({ pretty: true, level: "debug" });
    expect(text).toMatch(/DEBUG.*request completed/);
  });

  it("keeps them at info in JSON lines", async () => {
    const text = await linesOf({ pretty: false, level: "info" });
    expect(
      text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { msg: string; level: number }),
    ).toContainEqual(expect.objectContaining({ msg: "request completed", level: 30 }));
  });
});
