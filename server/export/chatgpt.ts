// A ChatGPT conversation (conversations.json) as a chat (docs/export.md "ChatGPT"). ChatGPT keeps a conversation as
// a tree: every edit of a message and every regenerated reply starts a new branch, and `current_node` is the leaf
// that was on screen. The shown messages are the path from that leaf up to the root. Where the tree branched at a turn
// (an edited question: sibling user messages; a regenerated reply: sibling replies), the other branches become that
// turn's hidden versions in the sessions' own form (docs/sessions.md "Versions": `version`, `versions` on the turn's
// messages, `other_versions` on its user message), numbered in the order they were made; each hidden branch runs
// as far as it goes along its newest children. Text parts are kept; images and tool traffic (browsing, code
// execution) are not in the export's text, so they are counted, not invented.
import { createHash } from "node:crypto";
import type { Message } from "../../client/wire/index.ts";
import {
  chatgptNodeSchema,
  type ChatgptConversation,
  type ChatgptMessage,
  type ChatgptNode,
  type ImportedChat,
} from "./format.ts";
import type { Slices } from "./slices.ts";

/** Roles kept: what the people in the chat wrote and read. System prompts and tool traffic are ChatGPT's plumbing. */
const KEPT_ROLES = new Set(["user", "assistant"]);

/** The conversation's nodes by id, each checked; the first bad one names itself (`mapping.<id>...`). */
export async function chatgptNodes(
  mapping: Record<string, unknown>,
  slices: Slices,
): Promise<Map<string, ChatgptNode> | { path: PropertyKey[]; message: string }> {
  const nodes = new Map<string, ChatgptNode>();
  // A Map, never the mapping itself: a node id `__proto__` or `constructor` must not reach Object.prototype.
  for (const [id, value] of Object.entries(mapping)) {
    const node = chatgptNodeSchema.safeParse(value);
    if (!node.success)
      return { path: ["mapping", id, ...node.error.issues[0]!.path], message: node.error.issues[0]!.message };
    nodes.set(id, node.data);
    await slices.step();
  }
  return nodes;
}

export async function chatFromChatgpt(
  conversation: ChatgptConversation,
  nodes: Map<string, ChatgptNode>,
  elementText: () => string,
  agentId: string,
  slices: Slices,
): Promise<ImportedChat> {
  const id = conversation.conversation_id ?? conversation.id;
  // Without an id (older exports), the conversation's own content names it, so the same file imports once.
  const sourceId = `chatgpt:${id ?? createHash("sha256").update(elementText()).digest("hex")}`;
  const path = await shownPath(nodes, conversation.current_node ?? undefined, slices);
  const messages = await shownMessages(nodes, path, slices);
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
    documents: [],
  };
}

type Nodes = Map<string, ChatgptNode>;

/** Node ids from the root down to `leaf` (the shown branch); without a usable leaf, the newest branch. In slices. */
async function shownPath(nodes: Nodes, leaf: string | undefined, slices: Slices): Promise<string[]> {
  let at = leaf !== undefined && nodes.has(leaf) ? leaf : newestLeaf(nodes, rootOf(nodes));
  const up: string[] = [];
  const seen = new Set<string>();
  // A parent chain that loops or points outside the mapping ends the path there (a hostile or damaged file).
  while (at !== undefined && nodes.has(at) && !seen.has(at)) {
    seen.add(at);
    up.push(at);
    at = nodes.get(at)!.parent ?? undefined;
    await slices.step();
  }
  return up.reverse();
}

function rootOf(nodes: Nodes): string | undefined {
  for (const [id, node] of nodes) if (!node.parent || !nodes.has(node.parent)) return id;
  return undefined;
}

/** The newest (last) child of `id` that is in the mapping. */
function newestChild(nodes: Nodes, id: string): string | undefined {
  const children = nodes.get(id)?.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) if (nodes.has(children[i]!)) return children[i];
  return undefined;
}

/** Follows the newest (last) child down from `from`. */
function newestLeaf(nodes: Nodes, from: string | undefined): string | undefined {
  const seen = new Set<string>();
  let at = from;
  while (at !== undefined && !seen.has(at)) {
    seen.add(at);
    const next = newestChild(nodes, at);
    if (next === undefined) return at;
    at = next;
  }
  return at;
}

/** A message with the version fields of its turn (docs/sessions.md "Versions"). */
type Versioned = Message & { version?: number; versions?: number; other_versions?: HiddenBranch[] };
type HiddenBranch = { version: number; messages: Message[] };

/**
 * The shown path's messages; each turn with other branches carries its versions, its replies the turn's stamp. One
 * pass over the path (the set of its nodes is made once: made per question, it made an import quadratic), in slices.
 */
async function shownMessages(nodes: Nodes, path: string[], slices: Slices): Promise<Versioned[]> {
  const out: Versioned[] = [];
  const onPath = new Set(path);
  let stamp: { version: number; versions: number } | undefined;
  for (const nodeId of path) {
    await slices.step();
    const message = messageOf(nodes.get(nodeId)!);
    if (!message) continue;
    if (message.role !== "user") {
      out.push(stamp ? { ...message, ...stamp } : message);
      continue;
    }
    const turn = turnVersions(nodes, nodeId, onPath, message);
    stamp = turn && { version: turn.version, versions: turn.versions };
    out.push(turn ? { ...message, ...turn } : message);
  }
  return out;
}

/**
 * The versions of the turn at user node `userNode`: its sibling questions (edits) each with the branch below it, and
 * its replies' siblings (regenerations) each after the same question. Undefined when the turn never branched.
 */
function turnVersions(nodes: Nodes, userNode: string, onPath: Set<string>, question: Message) {
  const node = nodes.get(userNode)!;
  const parent = node.parent ? nodes.get(node.parent) : undefined;
  const shownReply = node.children.find((child) => onPath.has(child));
  const branches: Array<{ at: number; messages?: Message[] }> = [];
  for (const sibling of parent?.children ?? []) {
    if (sibling === userNode || nodes.get(sibling)?.message?.author.role !== "user") continue;
    const messages = branchMessages(nodes, sibling, onPath);
    if (messages.length > 0) branches.push({ at: createdAt(nodes.get(sibling)!), messages });
  }
  const edits = branches.length;
  for (const reply of node.children) {
    if (reply === shownReply || !nodes.has(reply)) continue;
    const messages = branchMessages(nodes, reply, onPath);
    if (messages.length > 0) branches.push({ at: createdAt(nodes.get(reply)!), messages: [question, ...messages] });
  }
  if (branches.length === 0) return undefined;
  // The shown branch was made when the node that sets it apart was: its reply among regenerations, else its question.
  const shownAt = branches.length > edits && shownReply ? createdAt(nodes.get(shownReply)!) : createdAt(node);
  const ordered = [...branches, { at: shownAt }].map((b, i) => ({ ...b, i })).sort((a, b) => a.at - b.at || a.i - b.i);
  const version = ordered.findIndex((b) => b.messages === undefined) + 1;
  const other_versions = ordered.flatMap((b, i) => (b.messages ? [{ version: i + 1, messages: b.messages }] : []));
  return { version, versions: ordered.length, other_versions };
}

function createdAt(node: ChatgptNode): number {
  return node.message?.create_time ?? 0;
}

/** A hidden branch from `from` down its newest children, stopping at the shown path (`exclude`) or a loop. */
function branchMessages(nodes: Nodes, from: string, exclude: Set<string>): Message[] {
  const messages: Message[] = [];
  const seen = new Set<string>();
  let at: string | undefined = from;
  while (at !== undefined && nodes.has(at) && !exclude.has(at) && !seen.has(at)) {
    seen.add(at);
    const message = messageOf(nodes.get(at)!);
    if (message) messages.push(message);
    at = newestChild(nodes, at);
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
