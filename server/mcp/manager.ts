// Every configured MCP server, the tools they expose, and the approvals of their calls (docs/tools.md). Servers are
// connected in parallel at start; one that fails is restarted with backoff on its own while the rest keep working.
// The exposed tool set is rebuilt whenever a server's status or tool list changes: a tool whose name is invalid or
// collides with another tool's is left out and reported by GET /mcp.
import type { FastifyBaseLogger } from "fastify";
import { isDeepStrictEqual } from "node:util";
import type { Clock } from "../clock.ts";
import type { EventStore } from "../events/event-store.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import type { RegisteredTool } from "../plugins/tools.ts";
import { Approvals } from "./approvals.ts";
import type { ApprovalMode, McpServerConfig } from "./config.ts";
import { McpConnection, type ServerStatus } from "./connection.ts";
import { agentReaches, exposedName, invalidToolReason } from "./names.ts";
import { approvalModeOf, needsApproval } from "./policy.ts";
import { registeredTool } from "./tool-adapter.ts";

export interface McpParts {
  servers: Record<string, McpServerConfig>;
  clock: Clock;
  log: FastifyBaseLogger;
  notifications: NotificationService;
  events: Pick<EventStore, "publish">;
  /** Whether a plugin registered this tool name (an MCP tool of the same name is left out). */
  pluginHas: (name: string) => boolean;
}

export interface LeftOutTool {
  tool: string;
  reason: string;
}

/** One server in GET /mcp. */
export interface ServerReport {
  name: string;
  transport: "stdio" | "http";
  status: ServerStatus;
  tool_count: number;
  tools: Array<{ name: string; tool: string; approval_mode: ApprovalMode; requires_approval: boolean }>;
  left_out: LeftOutTool[];
  last_error: string | null;
  restarts: number;
  dropped_messages: number;
}

interface Exposure {
  tools: Map<string, RegisteredTool>;
  leftOut: Map<string, LeftOutTool[]>;
}

export class McpManager {
  readonly approvals: Approvals;
  private readonly connections = new Map<string, McpConnection>();
  private exposure: Exposure = { tools: new Map(), leftOut: new Map() };
  /** One adapter per listed tool object: a rebuild for another server's sake does not rebuild validators. */
  private readonly adapters = new WeakMap<object, RegisteredTool>();

  /** Between start() and stop(): a server added by reconfigure() connects at once. */
  private running = false;

  constructor(private readonly parts: McpParts) {
    this.approvals = new Approvals(parts);
    for (const [name, config] of Object.entries(parts.servers)) this.add(name, config);
  }

  /** Connects every server in parallel; resolves when each first attempt has succeeded or failed. */
  async start(): Promise<void> {
    this.running = true;
    await Promise.all([...this.connections.values()].map((c) => c.start()));
    this.rebuild();
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  /**
   * Makes the servers these (settings changed, docs/settings.md): a server removed is stopped (its process ends), a
   * changed one is stopped and started again with its new config, a new one is started; the rest are left running.
   * Resolves once every started server's first attempt has succeeded or failed.
   */
  async reconfigure(servers: Record<string, McpServerConfig>): Promise<void> {
    const stopping: Array<Promise<void>> = [];
    for (const [name, connection] of this.connections) {
      if (Object.hasOwn(servers, name) && isDeepStrictEqual(connection.config, servers[name])) continue;
      this.connections.delete(name);
      stopping.push(connection.stop());
    }
    await Promise.all(stopping);
    const added = Object.entries(servers)
      .filter(([name]) => !this.connections.has(name))
      .map(([name, config]) => this.add(name, config));
    this.rebuild();
    if (this.running) await Promise.all(added.map((c) => c.start()));
    this.rebuild();
  }

  /** Stops and starts one server again (its restarts count goes on from a new connection: zero). */
  async restart(name: string): Promise<boolean> {
    const connection = this.connections.get(name);
    if (!connection) return false;
    this.connections.delete(name);
    await connection.stop();
    const fresh = this.add(name, connection.config);
    this.rebuild();
    if (this.running) await fresh.start();
    return true;
  }

  private add(name: string, config: McpServerConfig): McpConnection {
    const connection = new McpConnection(name, config, this.parts.clock, this.parts.log);
    connection.onChange = () => {
      // A connection replaced or removed may still report its ending: it no longer counts.
      if (this.connections.get(name) === connection) this.rebuild();
    };
    this.connections.set(name, connection);
    return connection;
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  /** The MCP tools an agent's `tools` list reaches (none without a list). */
  toolsFor(patterns: readonly string[] | undefined): RegisteredTool[] {
    if (patterns === undefined) return [];
    return [...this.exposure.tools.values()].filter((tool) => agentReaches(patterns, serverOf(tool), tool.name));
  }

  report(): ServerReport[] {
    return [...this.connections.values()].map((c) => {
      const tools = [...this.exposure.tools.values()].filter((t) => serverOf(t) === c.name);
      return {
        name: c.name,
        transport: c.config.transport,
        status: c.status,
        tool_count: tools.length,
        tools: tools.map((t) => {
          const tool = c.tools.find((m) => exposedName(c.name, m.name) === t.name);
          const mcpName = tool?.name ?? t.name;
          return {
            name: t.name,
            tool: mcpName,
            approval_mode: approvalModeOf(c.config, mcpName),
            requires_approval: needsApproval(c.config, mcpName, tool?.annotations),
          };
        }),
        left_out: this.exposure.leftOut.get(c.name) ?? [],
        last_error: c.lastError ?? null,
        restarts: c.restarts,
        dropped_messages: c.dropped,
      };
    });
  }

  /** Recomputes the exposed tools from every server's latest listing. */
  private rebuild(): void {
    const tools = new Map<string, RegisteredTool>();
    const leftOut = new Map<string, LeftOutTool[]>();
    const owners = new Map<string, number>();
    // A server that is restarting keeps the tools of its last listing: a call then answers that it is down (and
    // why), which tells the model more than a tool that vanished. One that never listed anything exposes nothing.
    const ready = [...this.connections.values()].filter((c) => c.status !== "stopped");
    for (const c of ready)
      for (const t of c.tools)
        owners.set(exposedName(c.name, t.name), (owners.get(exposedName(c.name, t.name)) ?? 0) + 1);
    for (const c of ready) {
      const out: LeftOutTool[] = [];
      for (const tool of c.tools) {
        const name = exposedName(c.name, tool.name);
        const reason = invalidToolReason(tool.name, name) ?? this.collision(name, owners);
        if (reason) out.push({ tool: tool.name.slice(0, 200), reason });
        else tools.set(name, this.adapter(name, c, tool));
      }
      if (out.length > 0) {
        leftOut.set(c.name, out);
        this.parts.log.warn({ mcp_server: c.name, left_out: out.slice(0, 20) }, "MCP tools left out");
      }
    }
    this.exposure = { tools, leftOut };
  }

  private adapter(name: string, connection: McpConnection, tool: McpConnection["tools"][number]): RegisteredTool {
    let adapter = this.adapters.get(tool);
    if (!adapter)
      this.adapters.set(
        tool,
        (adapter = registeredTool({ name, server: connection.name, tool }, connection, this.approvals)),
      );
    return adapter;
  }

  private collision(name: string, owners: Map<string, number>): string | undefined {
    if (this.parts.pluginHas(name)) return `its exposed name "${name}" is a plugin tool's name`;
    if ((owners.get(name) ?? 0) > 1) return `its exposed name "${name}" is listed more than once`;
    return undefined;
  }
}

function serverOf(tool: RegisteredTool): string {
  return tool.plugin.slice("mcp:".length);
}
