// One log format for both processes (docs/bridge.md "Logging", B70): pino records with the same fields from the
// bridge and the server, JSON lines when stdout is not a terminal, pino-pretty's lines when it is.
import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { processLog as bridgeProcessLog } from "../../bridge/log.ts";
import { processLog as serverProcessLog } from "../../server/log.ts";

/** A stream that keeps what is written to it; `isTTY` says whether it stands for a terminal. */
function captured(isTTY = false) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...String(chunk)
            .split("\n")
            .filter((line) => line !== ""),
        );
        done();
      },
    }),
    { isTTY },
  );
  return { stream, lines };
}

describe("the log format (B70)", () => {
  it("writes the same JSON fields from the bridge and the server when stdout is not a terminal", () => {
    const bridge = captured();
    const server = captured();
    bridgeProcessLog({ stream: bridge.stream }).warn({ address: "127.0.0.1", status: 429 }, "socket refused");
    serverProcessLog({ stream: server.stream }).warn({ address: "127.0.0.1", status: 429 }, "socket refused");
    const [bridgeRecord, serverRecord] = [JSON.parse(bridge.lines[0]!), JSON.parse(server.lines[0]!)];
    expect(Object.keys(bridgeRecord).sort()).toEqual(Object.keys(serverRecord).sort());
    const common = { level: 40, time: expect.any(Number), msg: "socket refused", address: "127.0.0.1", status: 429 };
    expect(bridgeRecord).toEqual({ ...common, service: "bridge" });
    expect(serverRecord).toEqual({ ...common, service: "server" });
  });

  it("keeps the bridge's records below its level out", () => {
    const out = captured();
    const log = bridgeProcessLog({ stream: out.stream, level: "info" });
    log.debug({}, "frame routed");
    log.info({ server_id: "srv1" }, "server joined");
    expect(out.lines.map((line) => JSON.parse(line).msg)).toEqual(["server joined"]);
  });

  it("writes pretty lines, not JSON, on a terminal", async () => {
    const out = captured(true);
    bridgeProcessLog({ stream: out.stream }).info({ server_id: "srv1" }, "server joined");
    await vi.waitFor(() => expect(out.lines.join("\n")).toContain("server joined"));
    const text = out.lines.join("\n");
    expect(text).toContain("INFO");
    expect(text).toContain("srv1");
    expect(() => JSON.parse(out.lines[0]!)).toThrow();
  });
});
