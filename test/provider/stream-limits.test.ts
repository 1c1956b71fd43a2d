// Hostile or broken backends against the adapter, over a raw node:http backend on 127.0.0.1 (full control of
// the socket): [DONE] with the connection kept open, bodies that never end, a huge error message, and chunks the
// adapter cannot handle. Each one must end the request (a `done` or a ProviderError), never hang or grow the
// heap, and only a real connection drop may be recovered.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chunk } from "../../scripts/scripted-backend/index.ts";
import { MAX_BODY_BYTES } from "../../server/provider/attempt.ts";
import { AFTER_DONE_MAX_BYTES } from "../../server/provider/transport.ts";
import { ProviderError } from "../../server/provider/errors.ts";
import { MAX_SSE_EVENT_CHARS, SseParser, type SseEvent } from "../../server/provider/sse.ts";
import { eventsOf, waitForEvent } from "../runner/helpers.ts";
import { startTestServer } from "../support/server.ts";
import { TestClock, collect, contentOf, makeProvider, settingsFor, user } from "./helpers.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A bare HTTP backend: each POST runs the current handler; `requests` counts them, `ports` names their sockets. */
interface RawBackend {
  url: string;
  requests: number;
  ports: number[];
  handle: Handler;
  close(): Promise<void>;
}

async function startRawBackend(): Promise<RawBackend> {
  const backend: RawBackend = {
    url: "",
    requests: 0,
    ports: [],
    handle: (_req, res) => res.end(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      backend.requests += 1;
      backend.ports.push(req.socket.remotePort ?? 0);
      backend.handle(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  backend.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return backend;
}

/**
 * Resolves once undici has read the next response to its end and put its socket back in the pool. undici publishes
 * `undici:request:trailers` at the body's end and frees the socket on the turn of the event loop after it
 * (client-h1.js onMessageComplete: `setImmediate(client[kResume])`): the second setImmediate runs after that one.
 */
function nextBodyRead(): Promise<void> {
  return new Promise((resolve) => {
    const read = () => {
      unsubscribe("undici:request:trailers", read);
      setImmediate(() => setImmediate(resolve));
    };
    subscribe("undici:request:trailers", read);
  });
}

const sse = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
const dataLine = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/** Writes `head`, then `filler` repeatedly (respecting backpressure) until the client closes the response or
 *  `limit` bytes are out, then ends. Resolves with the bytes written and whether the client closed first. */
function endless(
  res: ServerResponse,
  head: string,
  filler: string,
  limit: number,
): Promise<{ written: number; closedByClient: boolean }> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    res.on("close", () => {
      closed = true;
      resolve({ written, closedByClient: !res.writableFinished });
    });
    const piece = Buffer.from(filler);
    const pump = (): void => {
      while (!closed) {
        if (written >= limit) {
          res.end();
          return;
        }
        written += piece.length;
        if (!res.write(piece)) {
          res.once("drain", pump);
          return;
        }
      }
    };
    res.write(head);
    pump();
  });
}

let backend: RawBackend;
beforeAll(async () => {
  backend = await startRawBackend();
});
afterAll(() => backend.close());
afterEach(() => {
  backend.requests = 0;
  backend.ports = [];
});

describe("[DONE] ends the stream", () => {
  it("at once, although the backend keeps the connection open and sends keep-alive comments after it", async () => {
    let released!: Promise<void>;
    backend.handle = (_req, res) => {
      sse(res);
      res.write(dataLine(chunk({ content: "hi" })) + dataLine(chunk({}, "stop")) + "data: [DONE]\n\n");
      const ping = setInterval(() => res.write(": ping\n\n"), 20);
      released = new Promise((resolve) =>
        res.on("close", () => {
          clearInterval(ping);
          resolve();
        }),
      );
    };
    // The TestClock holds the idle watchdog (60 s): only [DONE] can end this request.
    const result = await makeProvider(settingsFor(backend.url)).run();
    expect(result.error).toBeUndefined();
    expect(result.done?.message.content).toBe("hi");
    expect(result.done?.finish_reason).toBe("stop");
    await released; // the adapter let go of the body instead of reading on
  }, 5_000);

  it("still lets later requests reuse the connection when the body ends shortly after [DONE]", async () => {
    backend.handle = (_req, res) => {
      sse(res);
      // The chunked terminator in a read of its own, as on a loaded machine or a real network.
      res.write(dataLine(chunk({ content: "ok" }, "stop")) + "data: [DONE]\n\n");
      setTimeout(() => res.end(), 30);
    };
    const { run } = makeProvider(settingsFor(backend.url));
    for (let i = 0; i < 4; i++) {
      const read = nextBodyRead();
      expect((await run()).done?.message.content).toBe("ok");
      // Not a fixed wait: under load the end came later than one, and the next request took a new socket.
      await read;
    }
    // The adapter read the body to its end after `done`, so its socket served the next request. (The first may
    // still get a new socket while the previous test's is being closed.)
    expect(backend.ports).toHaveLength(4);
    expect(new Set(backend.ports.slice(1)).size).toBe(1);
  });

  it("cuts a body still open after the grace, however much it sends", async () => {
    let closed!: Promise<void>;
    backend.handle = (_req, res) => {
      sse(res);
      res.write(dataLine(chunk({ content: "ok" }, "stop")) + "data: [DONE]\n\n");
      closed = endless(res, "", ": ".padEnd(1024, "x") + "\n\n", 1024 * AFTER_DONE_MAX_BYTES).then((end) => {
        expect(end.closedByClient).toBe(true); // cut, not read to its end
      });
    };
    expect((await makeProvider(settingsFor(backend.url)).run()).done?.message.content).toBe("ok");
    await closed;
  }, 5_000);
});

describe("size limits on what the backend sends", () => {
  const limit = 4 * MAX_SSE_EVENT_CHARS; // the backend gives up here; an unbounded reader would have taken it all
  const bodies = [
    ["one line that never ends", 'data: {"choices":[{"delta":{"content":"', "a".repeat(64 * 1024)],
    ["data: lines that never reach a blank line", "", `data: ${"b".repeat(64 * 1024 - 7)}\n`],
  ] as const;

  it.each(bodies)(
    "a stream event that outgrows %s is an invalid_chunk; the body is released at once",
    async (_name, head, filler) => {
      let sent!: ReturnType<typeof endless>;
      backend.handle = (_req, res) => {
        sse(res);
        sent = endless(res, head, filler, limit);
      };
      const result = await makeProvider(settingsFor(backend.url, { stream_recovery: { mode: "aggressive" } })).run();
      expect(result.error?.code).toBe("invalid_chunk");
      expect(result.error?.message).toContain(`${MAX_SSE_EVENT_CHARS / (1024 * 1024)} MiB`);
      const { written, closedByClient } = await sent;
      expect(closedByClient).toBe(true);
      expect(written).toBeLessThan(limit);
      expect(backend.requests).toBe(1); // not a connection drop: no recovery
    },
    20_000,
  );

  it.each([false, true])(
    "a whole JSON body larger than MAX_BODY_BYTES is an invalid_response (stream request: %s)",
    async (stream) => {
      const bodyLimit = 2 * MAX_BODY_BYTES;
      let sent!: ReturnType<typeof endless>;
      backend.handle = (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        sent = endless(res, '{"choices":[{"message":{"role":"assistant","content":"', "c".repeat(64 * 1024), bodyLimit);
      };
      const result = await makeProvider(settingsFor(backend.url)).run({ stream });
      expect(result.error?.code).toBe("invalid_response");
      expect(result.error?.message).toContain(`${MAX_BODY_BYTES / (1024 * 1024)} MiB`);
      const { written, closedByClient } = await sent;
      expect(closedByClient).toBe(true);
      expect(written).toBeLessThan(bodyLimit);
    },
    20_000,
  );

  it("a 5 MB error message inside a stream chunk is shortened to an excerpt", async () => {
    const huge = `overloaded ${"x".repeat(5 * 1024 * 1024)}`;
    backend.handle = (_req, res) => {
      sse(res);
      res.end(
        dataLine(chunk({ content: "a" })) +
          dataLine({ error: { message: huge, type: "server_error" } }) +
          "data: [DONE]\n\n",
      );
    };
    const result = await makeProvider(settingsFor(backend.url)).run();
    expect(result.error?.code).toBe("backend_error");
    expect(result.error?.message).toContain("overloaded xxx");
    expect(result.error!.message.length).toBeLessThan(1000);
    expect(result.error!.body!.length).toBeLessThan(1000);
  });
});

describe("SseParser bound (a small one, both scan loops)", () => {
  const parser = (events: SseEvent[]) => new SseParser((e) => events.push(e), undefined, 100);
  const refuses = (feed: () => void) => {
    let error: unknown;
    try {
      feed();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("invalid_chunk");
  };

  it.each(["\n", "\r\n", "\r"])("counts per event, not per stream (line end %j)", (eol) => {
    const events: SseEvent[] = [];
    const p = parser(events);
    for (let i = 0; i < 50; i++) p.feedText(`data: ${"x".repeat(40)}${eol}data: ${"y".repeat(40)}${eol}${eol}`);
    p.end();
    expect(events).toHaveLength(50);
  });

  it.each(["\n", "\r\n", "\r"])(
    "refuses an unfinished line or an event that outgrows it, fed in pieces (line end %j)",
    (eol) => {
      const line = parser([]);
      refuses(() => {
        line.feedText(`data: ok${eol}${eol}data: `);
        for (let i = 0; i < 20; i++) line.feedText("a".repeat(10));
      });
      const tail = parser([]);
      refuses(() => tail.feedText(`data: ok${eol}${eol}data: ${"a".repeat(200)}`)); // the tail of a read with this line end
      const event = parser([]);
      refuses(() => {
        for (let i = 0; i < 10; i++) event.feedText(`data: ${"b".repeat(30)}${eol}`);
      });
    },
  );
});

describe("only a transport failure is recovered", () => {
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  it("a chunk the adapter cannot handle (arguments nested past the stack) ends the request without re-issuing it", async () => {
    backend.handle = (_req, res) => {
      sse(res);
      // JSON.parse takes the nesting; JSON.stringify of the arguments object overflows the stack.
      const fragment = `{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":${deep(50_000)}}}`;
      res.end(`data: {"choices":[{"index":0,"delta":{"tool_calls":[${fragment}]}}]}\n\ndata: [DONE]\n\n`);
    };
    const result = await makeProvider(
      settingsFor(backend.url, { stream_recovery: { mode: "aggressive", max_retries: 3 } }),
    ).run();
    expect(result.error?.code).toBe("invalid_chunk");
    expect(result.error?.message).toContain("Maximum call stack size exceeded");
    expect(result.deltas.filter((d) => d.type === "recovery")).toEqual([]);
    expect(backend.requests).toBe(1);
  });

  it("a socket reset mid-stream is still recovered", async () => {
    let calls = 0;
    let first: { socket: { destroy(): void } | null } | undefined;
    backend.handle = (_req, res) => {
      sse(res);
      if ((calls += 1) === 1) {
        res.write(dataLine(chunk({ content: "Hel" })));
        first = res;
      } else {
        res.end(dataLine(chunk({ content: "Hello" }, "stop")) + "data: [DONE]\n\n");
      }
    };
    const { provider } = makeProvider(settingsFor(backend.url, { stream_recovery: { mode: "aggressive" } }));
    const request = { messages: [user("hi")], stream: true, signal: new AbortController().signal };
    // The reset comes once the first part has reached the adapter: mid-stream, as a connection dropped by a network.
    const result = await collect(provider.complete(request), (delta) => {
      if (delta.type !== "content" || !first) return;
      first.socket?.destroy();
      first = undefined;
    });
    expect(result.error).toBeUndefined();
    expect(result.deltas.filter((d) => d.type === "recovery")).toHaveLength(1);
    expect(contentOf(result)).toBe("HelHello");
    expect(result.done?.message.content).toBe("Hello");
    expect(backend.requests).toBe(2);
  });
});

describe("through the server", () => {
  it("[DONE] on a kept-open stream and an endless line both end with request_completed; the session takes the next send", async () => {
    let pings: NodeJS.Timeout | undefined;
    let calls = 0;
    backend.handle = (_req, res) => {
      sse(res);
      if ((calls += 1) === 1) {
        res.write(dataLine(chunk({ content: "hi" }, "stop")) + "data: [DONE]\n\n");
        pings = setInterval(() => res.write(": ping\n\n"), 20);
        res.on("close", () => clearInterval(pings));
      } else {
        void endless(res, 'data: {"choices":[{"delta":{"content":"', "a".repeat(64 * 1024), 4 * MAX_SSE_EVENT_CHARS);
      }
    };
    const server = await startTestServer(
      { providers: { default: { provider: "reference_compatible", model: "raw", base_url: backend.url } } },
      { clock: new TestClock() },
    );
    try {
      const created = await server.request({ method: "POST", url: "/sessions", payload: {} });
      const sid = created.json.session.id as string;
      const send = async () => {
        const res = await server.request({ method: "POST", url: `/sessions/${sid}/send`, payload: { content: "hi" } });
        expect(res.status, res.text).toBe(202);
        return res.json.request_id as string;
      };

      const first = await waitForEvent(server, await send());
      expect(first.some((e) => e.type === "error")).toBe(false);
      expect(first.at(-1)?.type).toBe("request_completed");

      const rid = await send(); // not 409 request_in_progress
      const second = await waitForEvent(server, rid);
      const error = second.find((e) => e.type === "error");
      expect(String(error?.detail)).toContain("MiB");
      expect(second.at(-1)?.type).toBe("request_completed");
      expect(eventsOf(server, rid).filter((e) => e.type === "error")).toHaveLength(1);
    } finally {
      clearInterval(pings);
      await server.close();
    }
  }, 20_000);
});
