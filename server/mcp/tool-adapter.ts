// An MCP tool as the runner's tool loop sees every tool (RegisteredTool): its run asks for approval when the policy
// says so, calls the server, and turns the answer into the tool message (docs/tools.md "A call"). Failures the
// model should read (server down, timeout, refused, the server's own isError) are results or thrown errors that the
// tool loop already turns into error results; nothing here can fail the request.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RegisteredTool, ToolResult, ToolRunContext } from "../plugins/tools.ts";
import type { Approvals, Outcome } from "./approvals.ts";
import type { McpConnection } from "./connection.ts";
import { needsApproval } from "./policy.ts";
import { toToolResult } from "./results.ts";

export interface ExposedTool {
  /** mcp__<server>__<tool> */
  name: string;
  server: string;
  tool: Tool;
}

export function registeredTool(exposed: ExposedTool, connection: McpConnection, approvals: Approvals): RegisteredTool {
  const parameters = (exposed.tool.inputSchema ?? { type: "object", properties: {} }) as Record<string, unknown>;
  return {
    plugin: `mcp:${exposed.server}`,
    name: exposed.name,
    description: exposed.tool.description ?? exposed.tool.title,
    parameters,
    validator: validatorOf(parameters),
    run: (args, ctx) => runCall(exposed, connection, approvals, args, ctx),
  };
}

/** The input schema as zod; a schema zod cannot read is left to the server to check. */
function validatorOf(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

async function runCall(
  exposed: ExposedTool,
  connection: McpConnection,
  approvals: Approvals,
  args: Record<string, unknown>,
  ctx: ToolRunContext,
): Promise<ToolResult> {
  const config = connection.config;
  // The latest listing's annotations decide (a list_changed may have changed them since the request started).
  const current = connection.tools.find((t) => t.name === exposed.tool.name) ?? exposed.tool;
  if (needsApproval(config, exposed.tool.name, current.annotations)) {
    const { outcome, record } = await approvals.ask({
      sessionId: ctx.session_id,
      requestId: ctx.request_id,
      toolCallId: ctx.tool_call_id,
      callIndex: ctx.call_index,
      name: exposed.name,
      server: exposed.server,
      tool: exposed.tool.name,
      args,
      timeoutMs: config.approval_timeout_seconds * 1000,
      signal: ctx.signal,
    });
    if (outcome.response !== "approve") {
      if (outcome.response === "deny") approvals.resolve(ctx.session_id, record, { decision: "denied" });
      return refusal(outcome, config.approval_timeout_seconds);
    }
    // Resolved as the call starts: the record's life is the decision; the tool message tells how the call went.
    approvals.resolve(ctx.session_id, record, { decision: "approved" });
  }
  // Progress reaches the app as the call's parts (tool_partial events when the request streams).
  const onProgress = (progress: { progress: number; total?: number | undefined; message?: string | undefined }) =>
    ctx.emit({ progress: { ...progress } });
  const result = await connection.call(exposed.tool.name, args, {
    signal: ctx.signal,
    timeoutMs: config.timeout_seconds * 1000,
    onProgress,
  });
  const message = toToolResult(result, config.max_result_bytes);
  return { ...message, metadata: { ...message.metadata, mcp: { server: exposed.server, tool: exposed.tool.name } } };
}

function refusal(outcome: Exclude<Outcome, { response: "approve" }>, timeoutSeconds: number): ToolResult {
  switch (outcome.response) {
    case "deny":
      return {
        content: outcome.message
          ? `The user denied this tool call: ${outcome.message}`
          : "The user denied this tool call.",
        metadata: { error: true, approval: "denied" },
      };
    case "expired":
      return {
        content: `Nobody approved this tool call within ${timeoutSeconds} s, so it was not run.`,
        metadata: { error: true, approval: "expired" },
      };
    default:
      return {
        content: "The tool call was cancelled before it was approved.",
        metadata: { interrupted: true, approval: "cancelled" },
      };
  }
}
