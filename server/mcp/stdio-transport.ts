// The MCP client transport for a stdio server, written here instead of the SDK's StdioClientTransport because a
// server's output is untrusted (docs/tools.md "Safety"):
// - a message longer than max_message_bytes is never held whole (LineReader); its call is failed at once;
// - a line that is not JSON-RPC is dropped (its call, when its id can be read, is failed at once);
// - messages are parsed in slices of a few milliseconds, at most MESSAGES_PER_SECOND a second (pace.ts), and the
//   pipe is paused in between, so a server flooding notifications is slowed instead of starving /health;
// - a server that does not read its input cannot make the service buffer without bound.
// The child stays in the server's process group (no `detached`), so whoever ends the group ends it too.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Clock } from "../clock.ts";
import { idOfPartialMessage, LineReader, type OversizeLine } from "./line-reader.ts";
import { MessagePace, paceWait } from "./pace.ts";
import { endProcessTree } from "./process-tree.ts";

export interface StdioOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  maxMessageBytes: number;
  clock: Clock;
  /** Lines the server wrote that were not JSON-RPC, or too long (counted, and logged at a bounded rate). */
  onDropped: (reason: string) => void;
}

/** Environment handed down by default (the SDK's list): enough to find programs, nothing secret by accident. */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
/** Time one slice of parsing may take before the event loop gets a turn. */
const SLICE_MS = 4;
/** Unread bytes the service keeps for a server that does not read its input. */
const MAX_WRITE_BUFFER = 1024 * 1024;
const STDERR_KEEP = 2048;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | undefined;
  /** Output read from the pipe but not handled yet (the pace or the slice ran out); at most a chunk or so. */
  private held: Buffer | undefined;
  private pumping = false;
  /** Progress tokens of our requests still waiting for their answer: progress for any other is not ours. */
  private readonly progressTokens = new Set<string | number>();
  private closed = false;
  private stderrTail = "";
  /** The id an oversize message in progress was already failed with (found at its start). */
  private failedEarly: number | undefined;
  private readonly reader: LineReader;
  private readonly pace: MessagePace;

  constructor(private readonly options: StdioOptions) {
    this.pace = new MessagePace();
    this.reader = new LineReader(
      options.maxMessageBytes,
      (line) => this.deliver(line),
      (line) => this.oversize(line),
      (head) => this.oversizeStarts(head),
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines the server wrote to stderr: what it said before it failed. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    const { command, args, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: this.environment(),
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
        this.ended();
      });
      child.once("spawn", () => resolve());
      child.once("close", () => this.ended());
      child.stdin.on("error", (error) => this.onerror?.(error));
      child.stdout.on("error", (error) => this.onerror?.(error));
      child.stdout.on("data", (chunk: Buffer) => this.received(chunk));
      child.stderr.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) return Promise.reject(new Error("the server is not running"));
    if (stdin.writableLength > MAX_WRITE_BUFFER)
      return Promise.reject(new Error("the server is not reading its input"));
    const token = progressTokenOf(message);
    if (token !== undefined) {
      // A call that was cancelled never answers: its token is forgotten once many newer ones are kept.
      if (this.progressTokens.size >= 10_000) this.progressTokens.delete(this.progressTokens.values().next().value!);
      this.progressTokens.add(token);
    }
    stdin.write(JSON.stringify(message) + "\n");
    return Promise.resolve();
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    this.held = undefined;
    await endProcessTree(child, this.options.clock);
  }

  private environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const key of INHERITED_ENV) {
      const value = process.env[key];
      if (value !== undefined && !value.startsWith("()")) env[key] = value;
    }
    return { ...env, ...this.options.env };
  }

  private ended(): void {
    if (this.closed && this.onclose === undefined) return;
    this.closed = true;
    this.held = undefined;
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }

  /** New output: read at once as far as the pace allows; the rest is held and the pipe paused until it is read. */
  private received(chunk: Buffer): void {
    this.held = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    if (!this.pumping) this.pump();
  }

  /** Reads held output for one slice of SLICE_MS, within the pace; schedules itself while output is left. */
  private pump(): void {
    this.pumping = true;
    const started = performance.now();
    let wait = 0;
    const more = () => {
      if (this.closed || performance.now() - started > SLICE_MS) return false;
      wait = this.pace.take();
      return wait === 0;
    };
    const held = this.held;
    this.held = undefined;
    if (held) this.held = this.reader.push(held, more);
    if (!this.held || this.closed) {
      this.pumping = false;
      this.child?.stdout.resume();
      return;
    }
    // The server waits meanwhile: its pipe fills while it is paused.
    this.child?.stdout.pause();
    if (wait > 0) void paceWait(wait).then(() => this.pump());
    else setImmediate(() => this.pump());
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(line);
      // A notification nothing of ours would act on goes no further: the SDK would drop it after costly work.
      if (this.ignored(value)) return;
      message = JSONRPCMessageSchema.parse(value);
      if ("id" in message && !("method" in message) && message.id !== undefined) this.progressTokens.delete(message.id);
    } catch {
      this.options.onDropped("a line that is not a JSON-RPC message");
      return this.failCall(
        idOfPartialMessage(line.slice(0, 256), line.slice(-256)),
        "the server answered with a message that is not valid JSON-RPC",
      );
    }
    this.onmessage?.(message);
  }

  /** The id at the start of an oversize message fails its call at once, before the rest has streamed by. */
  private oversizeStarts(head: string): void {
    const id = idOfPartialMessage(head, "");
    this.failedEarly = id;
    this.failCall(id, this.oversizeMessage());
  }

  private oversize(line: OversizeLine): void {
    this.options.onDropped(`a message over ${this.options.maxMessageBytes} bytes (max_message_bytes)`);
    const early = this.failedEarly;
    this.failedEarly = undefined;
    if (early === undefined) this.failCall(idOfPartialMessage(line.head, line.tail), this.oversizeMessage());
  }

  private ignored(value: unknown): boolean {
    if (typeof value !== "object" || value === null || "id" in value) return false;
    const { method, params } = value as { method?: unknown; params?: { progressToken?: unknown } };
    if (typeof method !== "string") return false;
    if (method === "notifications/progress") return !this.progressTokens.has(params?.progressToken as string | number);
    return !HANDLED_NOTIFICATIONS.has(method);
  }

  private oversizeMessage(): string {
    const limit = this.options.maxMessageBytes;
    return `the server's answer was larger than ${limit} bytes (max_message_bytes), so it was dropped unread`;
  }

  /** Answers the call `id` with an error in the server's place, so it ends now rather than at its timeout. */
  private failCall(id: number | undefined, message: string): void {
    if (id === undefined) return;
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message } });
  }
}

/** The notifications the SDK's client acts on (cancellation, progress) and the one we listen to (list_changed). */
const HANDLED_NOTIFICATIONS = new Set([
  "notifications/cancelled",
  "notifications/progress",
  "notifications/tools/list_changed",
]);

function progressTokenOf(message: JSONRPCMessage): string | number | undefined {
  if (!("method" in message) || !("id" in message)) return undefined;
  const token = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}
