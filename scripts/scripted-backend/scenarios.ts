// What the scripted backend can play. A test queues scenarios (FIFO, one per POST /chat/completions) and the
// backend answers each request with the next one. Every scenario is plain data plus optional hooks, so the
// same module serves tests, benchmarks and the CLI.

/** One piece of an SSE body. */
export type StreamPart =
  /** `data: <JSON.stringify(data)>` followed by a blank line. */
  | { data: unknown }
  /** Written verbatim (odd framings: multi-line data, `error:` fields, missing blank lines). */
  | { raw: string }
  /** `:<text>`: a comment or keep-alive. */
  | { comment: string };

/** Handed to a test when a stream pauses (`pauseAfter`), so the test decides when and how it breaks. */
export interface PauseControl {
  /** Destroy the socket: a mid-stream connection drop. */
  destroy(): void;
  /** Write the rest and finish normally. */
  resume(): void;
}

export type Scenario =
  /** A JSON body (a completion, an error object, ...). */
  | { kind: "json"; status?: number; headers?: Record<string, string>; body: unknown }
  /** Any body with any content type (an HTML 404 page, malformed JSON, ...). */
  | { kind: "raw"; status?: number; headers?: Record<string, string>; contentType?: string; body: string }
  | {
      kind: "stream";
      parts: readonly StreamPart[];
      status?: number;
      headers?: Record<string, string>;
      /** Line ending of the framing; default "\n". */
      eol?: "\n" | "\r\n";
      /** Append `data: [DONE]`; default true. */
      done?: boolean;
      /** Split the encoded body into writes of this many bytes (1 = byte by byte); default one write per part. */
      writeSize?: number;
      /** Real delay before the first body byte (CLI trials; tests use `hang` with a clock instead). */
      firstByteDelayMs?: number;
      /** Real delay between writes, so a person sees the reply stream and can press Stop (the CLI's --delay-ms). */
      delayMs?: number;
      /** Stop after this many parts and hand a PauseControl to `onPause` / backend.nextPause(). */
      pauseAfter?: number;
      /** Stop after this many parts and destroy the socket at once (CLI trials). */
      destroyAfter?: number;
    }
  /** Pre-encoded bytes (benchmarks: no per-request encoding cost). */
  | { kind: "bytes"; contentType: string; body: Buffer; writeSize?: number }
  /** Never answer (or answer headers only): the client's timeout has to end it. */
  | { kind: "hang"; sendHeaders?: boolean; onReceived?: () => void }
  /** A bare status (429 with Retry-After, 500, 503 ...), JSON error body. */
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}
