// `mcp_servers.<name>` of the config file (docs/tools.md "Config"): a stdio server ({command, args?, env?, cwd?})
// or a Streamable HTTP one ({url, headers?}), with the approval policy and the bounds of its calls. Strict like
// the rest of the config, so a misspelt key is an error naming its path instead of a silent default.
import { z } from "zod";
import { webUrl } from "../config/web-url.ts";

/** "ask", "run at once", or "decide from the tool's annotations" (docs/tools.md "Approvals"). */
export const approvalModeSchema = z.enum(["always", "never", "auto"]);
export type ApprovalMode = z.infer<typeof approvalModeSchema>;

/** A mode for every tool of the server, or one per tool name (tools the map leaves out: the server's default). */
const requireApprovalSchema = z.union([approvalModeSchema, z.record(z.string().min(1), approvalModeSchema)], {
  error: 'use "always", "never" or "auto", or an object from tool name to one of those',
});

/**
 * A server name ends up inside `mcp__<server>__<tool>`: groups of letters and digits joined by single '-' or '_',
 * so the double underscore after it always ends it (no two servers' tools can get the same name) and the name stays
 * valid for chat-completions backends.
 */
export const SERVER_NAME = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/;

const common = {
  require_approval: requireApprovalSchema.optional(),
  /** A call that has not answered (nor reported progress) for this long is cancelled and answered as an error. */
  timeout_seconds: z.number().positive().max(86_400).default(60),
  /** An approval nobody answers for this long expires and the call is refused. */
  approval_timeout_seconds: z.number().positive().max(604_800).default(600),
  /** What the model is given of one result, text and images together; more is cut with a note. */
  max_result_bytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(100 * 1024),
  /**
   * Largest JSON-RPC message read from the server. A longer one is dropped without being parsed (its call
   * answers an error), so a hostile server cannot make the service hold a 100 MB string.
   */
  max_message_bytes: z
    .number()
    .int()
    .min(64 * 1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
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
    url: webUrl("url"),
    headers: z.record(z.string(), z.string()).default({}),
    ...common,
  })
  .strict();

/**
 * Exactly one of command (stdio) or url (Streamable HTTP). The branch is chosen by that key first, so a mistake
 * inside an entry is reported at its own path (`mcp_servers.files.require_approval`), not as "matches neither".
 */
export const mcpServerSchema = z.record(z.string(), z.unknown()).transform((value, ctx) => {
  const stdio = "command" in value;
  if (stdio === "url" in value) {
    ctx.addIssue({ code: "custom", message: "give either command (a stdio server) or url (a Streamable HTTP server)" });
    return z.NEVER;
  }
  const parsed = stdio ? stdioServerSchema.safeParse(value) : httpServerSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }
  return stdio
    ? { ...(parsed.data as z.output<typeof stdioServerSchema>), transport: "stdio" as const }
    : { ...(parsed.data as z.output<typeof httpServerSchema>), transport: "http" as const };
});

export const mcpServersSchema = z
  .record(
    z.string().regex(SERVER_NAME, "a server name is letters and digits, in groups joined by single '-' or '_'").max(40),
    mcpServerSchema,
  )
  .default({});

export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type StdioServerConfig = Extract<McpServerConfig, { transport: "stdio" }>;
export type HttpServerConfig = Extract<McpServerConfig, { transport: "http" }>;
