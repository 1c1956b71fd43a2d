// Request bodies are bounded in time as headers are (docs/bridge.md "Slow consumers and limits", B173): a long-poll
// POST whose body comes a byte at a time is cut with 408 once requestTimeoutMs passes, and the bridge serves others.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runCleanups, testBridge, until } from "./helpers.ts";

afterEach(runCleanups);

describe("a trickled request body", () => {
  it("B173: is cut with 408 after requestTimeoutMs instead of being held, and the bridge answers others", async () => {
    const bridge = await testBridge({ requestTimeoutMs: 400, headersTimeoutMs: 400 });
    const opened = (await (await fetch(`${bridge.httpUrl}/socket/longpoll?vsn=2.0.0`)).json()) as { token: string };
    const socket = connect(bridge.port, "127.0.0.1");
    let answer = "";
    let closed = false;
    socket.on("data", (data) => void (answer += data.toString()));
    socket.on("close", () => void (closed = true));
    socket.on("error", () => undefined);
    socket.write(
      `POST /socket/longpoll?vsn=2.0.0&token=${opened.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[`,
    );
    // One byte every 20 ms: 100,000 bytes would take over half an hour.
    const trickle = setInterval(() => void (closed || socket.write(" ")), 20);
    try {
      await until(() => closed, "the trickling connection cut", 10_000);
    } finally {
      clearInterval(trickle);
    }
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect((await fetch(`${bridge.httpUrl}/health`)).status).toBe(200);
  });
});
