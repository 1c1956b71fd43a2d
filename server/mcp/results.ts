// An MCP tool result as the tool message the model reads (docs/tools.md "A call"). Everything the server sent is
// data: text is kept as text, never interpreted; images go to metadata.images (sent as image parts when the
// backend accepts inline images, server/mcp/tool-images.ts); structured content is written as JSON; resource links
// by URI; embedded resources by their text or a line saying what was left out. `isError` makes it an error result.
// Text and images together are cut to max_result_bytes with a note saying so.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../plugins/tools.ts";

export interface ToolImage {
  media_type: string;
  data_url: string;
}

type Block = CallToolResult["content"][number];

export function toToolResult(result: CallToolResult, maxBytes: number): ToolResult {
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of result.content ?? []) describeBlock(block, texts, images);
  const structured = structuredText(result.structuredContent, texts);
  if (structured !== undefined) texts.push(structured);
  const budget = new Budget(maxBytes);
  let content = budget.text(texts.join("\n"));
  const kept = images.filter((image) => budget.take(image.data_url.length));
  const dropped = images.length - kept.length;
  if (dropped > 0)
    content += `\n[${dropped} image(s) left out: the result is over max_result_bytes (${maxBytes} bytes)]`;
  const metadata: Record<string, unknown> = {};
  if (kept.length > 0) metadata.images = kept;
  if (budget.cut || dropped > 0) metadata.truncated = true;
  if (result.isError === true) {
    metadata.error = true;
    content = `The tool reported an error: ${content}`;
  }
  return { content, metadata };
}

function describeBlock(block: Block, texts: string[], images: ToolImage[]): void {
  switch (block.type) {
    case "text":
      return void texts.push(block.text);
    case "image":
      images.push({ media_type: block.mimeType, data_url: `data:${block.mimeType};base64,${block.data}` });
      return void texts.push(`[image ${images.length}: ${block.mimeType}]`);
    case "audio":
      return void texts.push(`[audio left out: ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`);
    case "resource_link":
      return void texts.push(`[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}]`);
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string")
        return void texts.push(`[resource ${resource.uri}]\n${resource.text}`);
      return void texts.push(`[resource ${resource.uri}: ${resource.mimeType ?? "binary"} content left out]`);
    }
    default:
      return void texts.push(`[content of type "${String((block as { type?: unknown }).type)}" left out]`);
  }
}

/**
 * structuredContent as JSON, unless the text blocks already say it: one carries the same JSON (the spec asks
 * servers to), or the structure only wraps strings that are text blocks themselves ({"content": <the text>}).
 */
function structuredText(structured: unknown, texts: string[]): string | undefined {
  if (structured === undefined || structured === null) return undefined;
  const json = JSON.stringify(structured);
  const repeated = texts.some((text) => text.length <= json.length * 2 + 16 && sameJson(text, json));
  if (repeated) return undefined;
  const leaves: unknown[] = [];
  collectLeaves(structured, leaves, 0);
  const wrapsTexts = leaves.length > 0 && leaves.every((leaf) => typeof leaf === "string" && texts.includes(leaf));
  return wrapsTexts ? undefined : json;
}

function collectLeaves(value: unknown, out: unknown[], depth: number): void {
  if (out.length > 64 || depth > 8) return void out.push(undefined);
  if (Array.isArray(value)) return value.forEach((v) => collectLeaves(v, out, depth + 1));
  if (typeof value === "object" && value !== null)
    return Object.values(value).forEach((v) => collectLeaves(v, out, depth + 1));
  out.push(value);
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/** Bytes left of max_result_bytes: text is cut at a character boundary, an image is kept whole or not at all. */
class Budget {
  cut = false;
  constructor(private left: number) {}

  text(text: string): string {
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.left) {
      this.left -= bytes;
      return text;
    }
    this.cut = true;
    const note = `\n[cut: the result was ${bytes} bytes; the first ${this.left} are shown (max_result_bytes)]`;
    // toString drops a character split at the boundary (it decodes to U+FFFD, removed below).
    const head = Buffer.from(text)
      .subarray(0, this.left)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    this.left = 0;
    return head + note;
  }

  take(bytes: number): boolean {
    if (bytes > this.left) return false;
    this.left -= bytes;
    return true;
  }
}
