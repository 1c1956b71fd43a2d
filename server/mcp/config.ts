// `mcp_servers.<name>` of the config file (docs/tools.md "Config"): a stdio server ({command, args?, env?, cwd?})
// or a Streamable HTTP one ({url, headers?}), with the approval policy and the bounds of its calls. Strict like
// the rest of the config, so a misspelt key is an error naming its path instead of a silent default.
import { z } from "zod";

/** "ask", "run at once", or "decide from the tool's annotations" (docs/tools.md "Approvals"). */
export const approvalModeSchema = z.enum(["always", "never", "auto"]);
export type ApprovalMode = z.infer<typeof approvalModeSchema>;

/** A mode for every tool of the server, or one per tool name (tools the map leaves out: the server's default). */
const requireApprovalSchema = z.union([approvalModeSchema, z.record(z.string().min(1), approvalModeSchema)]);

/**
 * A server name ends up inside `mcp__<server>__<tool>`: letters, digits, '-' and single '_' only, so the
 * double underscore always separates the parts and the name stays valid for chat-completions backends.
 */
export const SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;

const common = {
  require_approval: requireApprovalSchema.optional(),
  /** A call that has not answered (nor reported progress) for this long is cancelled and answered as an error. */
  timeout_seconds: z.number().positive().max(86_400).default(60),
  /** An approval nobody answers for this long expires and the call is refused. */
  approval_timeout_seconds: z.number().positive().max(604_800).default(600),
  /** What the model is given of one result, text and images together; more is cut with a note. */
  max_result_bytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(100 * 1024),
  /**
   * Largest JSON-RPC message read from the server. A longer one is dropped without being parsed (its call
   * answers an error), so a hostile server cannot make the service hold a 100 MB string.
   */
  max_message_bytes: z.number().int().min(64 * 1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
};

const stdioServerSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();

const httpServerSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "url must be an http: or https: URL" }),
    headers: z.record(z.string(), z.string()).default({}),
    ...common,
  })
  .strict();

/** Exactly one of command (stdio) or url (Streamable HTTP). */
export const mcpServerSchema = z
  .union([stdioServerSchema, httpServerSchema], { error: "give either command (a stdio server) or url (a Streamable HTTP server)" })
  .transform((server) => ("command" in server ? { ...server, transport: "stdio" as const } : { ...server, transport: "http" as const }));

export const mcpServersSchema = z
  .record(z.string().regex(SERVER_NAME, "a server name is letters, digits, '-' and single '_'").max(40), mcpServerSchema)
  .default({});

export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type StdioServerConfig = Extract<McpServerConfig, { transport: "stdio" }>;
export type HttpServerConfig = Extract<McpServerConfig, { transport: "http" }>;
