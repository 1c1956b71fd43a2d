// What the app refuses before uploading anything, with the reason a person can act on: the agent's allow
// flags (docs/provider.md "Provider settings"), the image kinds the server stores, and the server's size limit as its agent view gives it
// (`max_image_bytes`, the server's assets.max_bytes). A server that does not say is asked: its 413 is shown too.
import type { AgentView as Agent } from "../../../client/index.ts";

/** The kinds server/assets/sniff.ts accepts. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
/** The largest image the server stores, from the agent view; undefined when the server does not say. */
export function maxImageBytesOf(agent: Agent | undefined): number | undefined {
  const value = (agent as { max_image_bytes?: unknown } | undefined)?.max_image_bytes;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

export type Refusal = string;

export function refuseFile(
  file: { type: string; size: number; name: string },
  agent: Agent | undefined,
): Refusal | undefined {
  if (agent && !agent.allow_image_attachment_base64) return `This agent does not accept uploaded images.`;
  if (!(IMAGE_TYPES as readonly string[]).includes(file.type))
    return `"${file.name}" is not a PNG, JPEG, GIF or WebP image.`;
  const max = maxImageBytesOf(agent);
  if (max !== undefined && file.size > max)
    return `"${file.name}" is ${megabytes(file.size)}; images can be at most ${megabytes(max)}. Resize it and try again.`;
  return undefined;
}

export function refuseUrl(url: string, agent: Agent | undefined): Refusal | undefined {
  if (agent && !agent.allow_image_attachment_url) return "This agent does not accept image links.";
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
      return "An image link must start with https:// or http://.";
  } catch {
    return "That is not a valid link.";
  }
  return undefined;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
