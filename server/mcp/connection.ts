// One MCP server and the SDK client talking to it (docs/tools.md "Servers"). States:
//   connecting --initialized and tools listed--> ready
//   connecting | ready --failed to start, exited, or the link closed--> restarting --backoff--> connecting
//   any --stop()--> stopped (final)
// A ready server that stayed up for a minute starts its backoff over. `notifications/tools/list_changed` re-lists
// its tools (one listing at a time; a flood of them costs one more listing, not one each).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyBaseLogger } from "fastify";
import { deadlineAfter, type Clock } from "../clock.ts";
import type { McpServerConfig } from "./config.ts";
import { httpTransport, MessageTooLarge } from "./http-transport.ts";
import { loadMcpSdk, type McpSdk } from "./sdk.ts";
import { StdioTransport } from "./stdio-transport.ts";

export type ServerStatus = "connecting" | "ready" | "restarting" | "stopped";

/** Restart delays: 1 s, doubling, at most a minute. */
const BACKOFF_MS = { first: 1000, max: 60_000 };
/** Up this long, a server is taken as healthy again: its next failure restarts it after the first delay. */
const HEALTHY_AFTER_MS = 60_000;
/** Bounds on what a server may list: pages followed, tools kept. */
const MAX_PAGES = 20;
const MAX_TOOLS = 1000;
const CONNECT_TIMEOUT_MS = 30_000;
/** Dropped lines and protocol errors are logged at most this often per server. */
const LOG_EVERY_MS = 10_000;
/** No SDK timer: every call's time is decided on the injected clock (its own deadline), so this only disarms it. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The server's progress notifications for this call. */
  onProgress?: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void;
}

export class McpConnection {
  status: ServerStatus = "connecting";
  tools: Tool[] = [];
  lastError: string | undefined;
  restarts = 0;
  /** Messages the server sent that were dropped (not JSON-RPC, or over max_message_bytes). */
  dropped = 0;
  private client: Client | undefined;
  private transport: StdioTransport | Transport | undefined;
  private failures = 0;
  private readyAt = 0;
  private listing: Promise<void> | undefined;
  private attempting: Promise<void> | undefined;
  private relist = false;
  private lastLog = -Infinity;
  private readonly stopping = new AbortController();
  /** Called whenever the tool list or the status changes (the manager rebuilds its exposed tools). */
  onChange: () => void = () => undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Child pid of a stdio server while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined;
  }

  /** The first attempt: resolves when it succeeded or failed (a failure goes on restarting in the background). */
  start(): Promise<void> {
    return this.attempt();
  }

  /** Ends the server for good: an attempt in progress is abandoned, the child ended (process-tree.ts). */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.status = "stopped";
    await this.attempting;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    this.onChange();
  }

  async call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const client = this.client;
    if (this.status !== "ready" || !client) throw new Error(this.unavailable());
    // The timeout counts from the last sign of life: progress notifications re-arm it.
    let deadline = deadlineAfter(this.clock, options.timeoutMs, options.signal);
    const call = new AbortController();
    const rearm = () => {
      deadline.signal.removeEventListener("abort", expire);
      deadline.dispose();
      deadline = deadlineAfter(this.clock, options.timeoutMs, options.signal);
      deadline.signal.addEventListener("abort", expire, { once: true });
    };
    const expire = () =>
      call.abort(
        options.signal.aborted
          ? options.signal.reason
          : new Error(`no answer within ${options.timeoutMs / 1000} s (timeout_seconds)`),
      );
    deadline.signal.addEventListener("abort", expire, { once: true });
    try {
      const result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        signal: call.signal,
        timeout: NO_SDK_TIMEOUT,
        onprogress: (progress) => {
          rearm();
          options.onProgress?.({ progress: progress.progress, total: progress.total, message: progress.message });
        },
      });
      return result as CallToolResult;
    } catch (error) {
      if (call.signal.aborted && !options.signal.aborted)
        throw new Error(
          `the call to "${tool}" on MCP server "${this.name}" was cancelled: ${(call.signal.reason as Error).message}`,
        );
      if (linkLost(this.config, error)) this.reconnect(client, describeError(error));
      throw new Error(`MCP server "${this.name}": ${describeError(error)}`);
    } finally {
      deadline.signal.removeEventListener("abort", expire);
      deadline.dispose();
    }
  }

  private unavailable(): string {
    const why = this.lastError ? `; last error: ${this.lastError}` : "";
    return `MCP server "${this.name}" is not available (${this.status})${why}`;
  }

  private attempt(): Promise<void> {
    return (this.attempting = this.connect().finally(() => (this.attempting = undefined)));
  }

  private async connect(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.status = "connecting";
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (error) {
      return this.failed(`could not start: ${describeError(error)}`);
    }
    if (this.stopping.signal.aborted) return;
    const client = new sdk.Client({ name: "chat-relay", version: "0.1.0" }, { capabilities: {} });
    const transport = this.makeTransport(sdk);
    this.transport = transport;
    client.onerror = (error) => this.protocolError(error);
    client.onclose = () => this.closed(client);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools(client));
    const deadline = deadlineAfter(this.clock, CONNECT_TIMEOUT_MS, this.stopping.signal);
    try {
      await client.connect(transport, { signal: deadline.signal, timeout: NO_SDK_TIMEOUT });
      this.client = client;
      this.tools = await this.listTools(client, deadline.signal);
      if (this.stopping.signal.aborted) throw new Error("stopped");
      this.status = "ready";
      this.readyAt = this.clock.now();
      this.lastError = undefined;
      this.log.info({ mcp_server: this.name, tools: this.tools.length }, "MCP server ready");
      this.onChange();
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      this.failed(`could not start: ${this.withStderr(describeError(error))}`);
    } finally {
      deadline.dispose();
    }
  }

  private makeTransport(sdk: McpSdk): StdioTransport | Transport {
    const c = this.config;
    if (c.transport === "http") return httpTransport(sdk, c.url, c.headers, c.max_message_bytes);
    return new StdioTransport({
      command: c.command,
      args: c.args,
      env: c.env,
      cwd: c.cwd,
      maxMessageBytes: c.max_message_bytes,
      clock: this.clock,
      onDropped: (reason) => {
        this.dropped++;
        this.rateLimitedWarn(`MCP server sent ${reason}; dropped`);
      },
    });
  }

  /** An HTTP server that cannot be reached, or forgot our session, is connected again (after the backoff). */
  private reconnect(client: Client, message: string): void {
    if (this.client !== client || this.stopping.signal.aborted) return;
    this.client = undefined;
    void client.close().catch(() => undefined);
    this.failed(`the connection was lost: ${message}`);
  }

  /** The link closed: the child exited or the HTTP session ended. Its pending calls were failed by the SDK. */
  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.stopping.signal.aborted) return;
    this.failed(this.withStderr("the server exited or closed the connection"));
  }

  private failed(message: string): void {
    if (this.stopping.signal.aborted) return;
    if (this.status === "ready" && this.clock.now() - this.readyAt >= HEALTHY_AFTER_MS) this.failures = 0;
    this.status = "restarting";
    this.lastError = message;
    const delay = Math.min(BACKOFF_MS.first * 2 ** this.failures, BACKOFF_MS.max);
    this.failures++;
    this.restarts++;
    this.log.warn(
      { mcp_server: this.name, err: message, retry_in_ms: delay },
      "MCP server failed; restarting after a delay",
    );
    this.onChange();
    this.clock.sleep(delay, this.stopping.signal).then(
      () => this.attempt(),
      () => undefined,
    );
  }

  private async listTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
      const result = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: NO_SDK_TIMEOUT });
      tools.push(...result.tools.slice(0, MAX_TOOLS - tools.length));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** One listing at a time; notifications during it ask for exactly one more. */
  private refreshTools(client: Client): void {
    if (this.listing) {
      this.relist = true;
      return;
    }
    this.listing = (async () => {
      do {
        this.relist = false;
        const deadline = deadlineAfter(this.clock, CONNECT_TIMEOUT_MS, this.stopping.signal);
        try {
          const tools = await this.listTools(client, deadline.signal);
          if (this.client === client) {
            this.tools = tools;
            this.onChange();
          }
        } catch (error) {
          this.rateLimitedWarn(`listing tools after list_changed failed: ${describeError(error)}`);
        } finally {
          deadline.dispose();
        }
      } while (this.relist && this.client === client);
      this.listing = undefined;
    })();
  }

  private protocolError(error: Error): void {
    this.rateLimitedWarn(`MCP protocol error: ${error.message.slice(0, 300)}`);
  }

  private rateLimitedWarn(message: string): void {
    const now = this.clock.now();
    if (now - this.lastLog < LOG_EVERY_MS) return;
    this.lastLog = now;
    this.log.warn({ mcp_server: this.name }, message);
  }

  private withStderr(message: string): string {
    const stderr = this.transport instanceof StdioTransport ? this.transport.stderr : "";
    return stderr ? `${message} (stderr: ${stderr.slice(-500)})` : message;
  }
}

/**
 * Over HTTP, a failure that is not an answer of the server (a JSON-RPC error is an McpError) nor an oversize
 * message means the link is gone: the server is down, or answered 404 for a session it no longer has.
 */
function linkLost(config: McpServerConfig, error: unknown): boolean {
  return config.transport === "http" && !(error instanceof McpError) && !(error instanceof MessageTooLarge);
}

function describeError(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}
