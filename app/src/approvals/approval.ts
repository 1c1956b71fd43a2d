// What an approval card needs from a session interaction (docs/tools.md "Approvals"): which tool of which MCP
// server asks, with which arguments (answering is in answer.ts, loaded with the card). The record was checked by the
// client library at the boundary (its `display` is an open object); this reads the approval fields in it, and
// nothing here trusts its strings as markup (they are rendered as text).
import type { ClientRecord } from "../../../client/index.ts";

export interface Approval {
  record: ClientRecord;
  /** The tool's name as the model sees it (`mcp__<server>__<tool>`): the card's accessible name. */
  name: string;
  server: string;
  tool: string;
  /** Pretty JSON of the arguments, or the record's body when the server left the arguments out (over 16 KiB). */
  argumentsText: string;
}

interface ApprovalDisplay {
  server: string;
  tool: string;
  name: string;
  arguments?: unknown;
}

/** `display.approval` when it has the three names as strings (a plain check: no schema library in the first load). */
function approvalDisplayOf(display: unknown): ApprovalDisplay | undefined {
  const approval = (display as { approval?: unknown } | null | undefined)?.approval;
  if (typeof approval !== "object" || approval === null) return undefined;
  const { server, tool, name } = approval as Record<string, unknown>;
  if (typeof server !== "string" || typeof tool !== "string" || typeof name !== "string") return undefined;
  return approval as ApprovalDisplay;
}

/** The approval a record asks for, or undefined when the record is not a pending approval. */
export function approvalOf(record: ClientRecord): Approval | undefined {
  if (record.kind !== "interaction" || record.status !== "pending_response") return undefined;
  const display = approvalDisplayOf(record.display);
  if (!display) return undefined;
  const { server, tool, name, arguments: args } = display;
  const argumentsText = args === undefined ? (record.body ?? "") : JSON.stringify(args, null, 2);
  return { record, name, server, tool, argumentsText };
}

/** Records that are approvals (pending or not): the generic notification cards leave them to the approval cards. */
export function isApprovalRecord(record: ClientRecord): boolean {
  return record.kind === "interaction" && approvalDisplayOf(record.display) !== undefined;
}
