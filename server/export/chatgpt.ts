// A ChatGPT conversation (conversations.json) as a chat (docs/export.md "ChatGPT"). ChatGPT keeps a conversation as
// a tree: every edit of a message and every regenerated reply starts a new branch, and `current_node` is the leaf
// that was on screen. The shown messages are the path from that leaf up to the root; at each message where the tree
// branched, the other branches become that turn's other versions (metadata.imported_versions), each the branch's
// messages as far as it goes (following its newest child). Text parts are kept; images and tool traffic
// (browsing, code execution) are not in the export's text, so they are counted, not invented.
import { createHash } from "node:crypto";
import type { Message } from "../../client/wire/index.ts";
import type { ChatgptConversation, ChatgptMessage, ChatgptNode, ImportedChat } from "./format.ts";

/** Roles kept: what the people in the chat wrote and read. System prompts and tool traffic are ChatGPT's plumbing. */
const KEPT_ROLES = new Set(["user", "assistant"]);

export function chatFromChatgpt(
  conversation: ChatgptConversation,
  elementText: () => string,
  agentId: string,
): ImportedChat {
  const id = conversation.conversation_id ?? conversation.id;
  // Without an id (older exports), the conversation's own content names it, so the same file imports once.
  const sourceId = `chatgpt:${id ?? createHash("sha256").update(elementText()).digest("hex")}`;
  const { mapping } = conversation;
  const path = shownPath(mapping, conversation.current_node ?? undefined);
  const messages: Message[] = [];
  for (const nodeId of path) {
    const message = messageOf(mapping[nodeId]!);
    if (!message) continue;
    const versions = otherBranches(mapping, nodeId, path);
    messages.push(
      versions.length === 0 ? message : { ...message, metadata: { ...message.metadata, imported_versions: versions } },
    );
  }
  const title = conversation.title?.trim();
  return {
    source_id: sourceId,
    agent_id: agentId,
    fields: {
      ...(title ? { title } : {}),
      ...(conversation.create_time ? { created_at: isoOf(conversation.create_time) } : {}),
      metadata: { imported_from: { format: "chatgpt", ...(id ? { conversation_id: id } : {}) } },
    },
    messages,
    assets: [],
  };
}

/** Node ids from the root down to `leaf` (the shown branch); without a usable leaf, the newest branch. */
function shownPath(mapping: Record<string, ChatgptNode>, leaf: string | undefined): string[] {
  let at = leaf !== undefined && mapping[leaf] ? leaf : newestLeaf(mapping, rootOf(mapping));
  const up: string[] = [];
  const seen = new Set<string>();
  // A parent chain that loops or points outside the mapping ends the path there (a hostile or damaged file).
  while (at !== undefined && mapping[at] && !seen.has(at)) {
    seen.add(at);
    up.push(at);
    at = mapping[at]!.parent ?? undefined;
  }
  return up.reverse();
}

function rootOf(mapping: Record<string, ChatgptNode>): string | undefined {
  return Object.keys(mapping).find((id) => !mapping[id]!.parent || !mapping[mapping[id]!.parent!]);
}

/** Follows the newest (last) child down from `from`. */
function newestLeaf(mapping: Record<string, ChatgptNode>, from: string | undefined): string | undefined {
  const seen = new Set<string>();
  let at = from;
  while (at !== undefined && !seen.has(at)) {
    seen.add(at);
    const next = [...(mapping[at]?.children ?? [])].reverse().find((child) => mapping[child]);
    if (next === undefined) return at;
    at = next;
  }
  return at;
}

/** The branches beside `nodeId` (its siblings' subtrees, each as the messages down its newest path). */
function otherBranches(
  mapping: Record<string, ChatgptNode>,
  nodeId: string,
  path: string[],
): Array<{ messages: Message[] }> {
  const parent = mapping[nodeId]!.parent;
  const siblings =
    parent && mapping[parent] ? mapping[parent]!.children.filter((child) => child !== nodeId && mapping[child]) : [];
  const onPath = new Set(path);
  return siblings
    .map((sibling) => ({ messages: branchMessages(mapping, sibling, onPath) }))
    .filter((branch) => branch.messages.length > 0);
}

function branchMessages(mapping: Record<string, ChatgptNode>, from: string, exclude: Set<string>): Message[] {
  const messages: Message[] = [];
  const seen = new Set(exclude);
  let at: string | undefined = from;
  while (at !== undefined && mapping[at] && !seen.has(at)) {
    seen.add(at);
    const message = messageOf(mapping[at]!);
    if (message) messages.push(message);
    at = [...mapping[at]!.children].reverse().find((child) => mapping[child]);
  }
  return messages;
}

/** A node's message as ours, or undefined for an empty node, a hidden one, or a role we do not keep. */
function messageOf(node: ChatgptNode): Message | undefined {
  const message = node.message;
  if (!message || !KEPT_ROLES.has(message.author.role)) return undefined;
  if (message.metadata?.["is_visually_hidden_from_conversation"] === true) return undefined;
  const { text, omitted } = textOf(message);
  if (text.trim() === "" && omitted === 0) return undefined;
  const chatgpt = {
    ...(message.id ? { message_id: message.id } : {}),
    ...(message.create_time ? { created_at: isoOf(message.create_time) } : {}),
    ...(typeof message.metadata?.["model_slug"] === "string" ? { model: message.metadata["model_slug"] } : {}),
    ...(omitted > 0 ? { omitted_parts: omitted } : {}),
  };
  return { role: message.author.role as Message["role"], content: text, metadata: { chatgpt } };
}

function textOf(message: ChatgptMessage): { text: string; omitted: number } {
  const { content } = message;
  if (content.content_type === "code" && typeof content.text === "string")
    return { text: `\`\`\`\n${content.text}\n\`\`\``, omitted: 0 };
  if (typeof content.text === "string" && !content.parts) return { text: content.text, omitted: 0 };
  const parts = content.parts ?? [];
  const texts = parts.filter((part): part is string => typeof part === "string");
  return { text: texts.join("\n\n"), omitted: parts.length - texts.length };
}

function isoOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}
