// The Streamable HTTP transport: the SDK's, given a fetch whose response bodies are bounded, because the SDK reads a
// JSON answer whole (response.json()) and an SSE event whole before parsing it. A JSON body or one SSE event over
// max_message_bytes errors the body stream instead (docs/tools.md "Safety", S1): a JSON answer's call then fails at
// once; an oversize SSE event ends that stream and its call ends at its timeout.
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { MessagePace, paceWait } from "./pace.ts";
import type { McpSdk } from "./sdk.ts";

export function httpTransport(
  sdk: McpSdk,
  url: string,
  headers: Record<string, string>,
  maxMessageBytes: number,
): StreamableHTTPClientTransport {
  return new sdk.StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: boundedFetch(maxMessageBytes, new MessagePace()),
    // One quick retry of a dropped GET stream; the connection's own restart handles a server that is gone.
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 30_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  });
}

function boundedFetch(limit: number, pace: MessagePace): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    const body = response.body.pipeThrough(sse ? perEventLimit(limit, pace) : totalLimit(limit));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A message over max_message_bytes: the server misbehaved, the link itself is fine. */
export class MessageTooLarge extends Error {
  override name = "MessageTooLarge";
}

function tooLarge(limit: number): Error {
  return new MessageTooLarge(
    `the server sent a message larger than ${limit} bytes (max_message_bytes); it was dropped`,
  );
}

function totalLimit(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) return controller.error(tooLarge(limit));
      controller.enqueue(chunk);
    },
  });
}

/**
 * Counts the bytes of the SSE event in progress (a blank line ends an event and starts the count over), and paces
 * events like the stdio transport does: past the budget, the chunk waits, and with it the socket.
 */
function perEventLimit(limit: number, pace: MessagePace): TransformStream<Uint8Array, Uint8Array> {
  let inEvent = 0;
  let lineLength = 0;
  return new TransformStream({
    async transform(chunk, controller) {
      let start = 0;
      let events = 0;
      for (;;) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.byteLength : newline;
        lineLength += end - start;
        inEvent += end - start;
        if (newline === -1) break;
        // "\n" or "\r\n" alone: the event ended.
        if (lineLength === 0 || (lineLength === 1 && chunk[newline - 1] === 13)) {
          inEvent = 0;
          events++;
        }
        lineLength = 0;
        start = newline + 1;
      }
      if (inEvent > limit) return controller.error(tooLarge(limit));
      for (let i = 0; i < events; i++) for (let wait = pace.take(); wait > 0; wait = pace.take()) await paceWait(wait);
      controller.enqueue(chunk);
    },
  });
}
