// What the app refuses before uploading anything, with the reason a person can act on: the agent's allow
// flags (SPEC Area A), the image kinds the server stores, and the server's default size limit.
import type { AgentView as Agent } from "../../../client/index.ts";

/** The kinds server/assets/sniff.ts accepts. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
/** The server's default `assets.max_bytes`; a server configured lower still answers 413, which is shown too. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export type Refusal = string;

export function refuseFile(file: { type: string; size: number; name: string }, agent: Agent | undefined): Refusal | undefined {
  if (agent && !agent.allow_image_attachment_base64) return `This agent does not accept uploaded images.`;
  if (!(IMAGE_TYPES as readonly string[]).includes(file.type)) return `"${file.name}" is not a PNG, JPEG, GIF or WebP image.`;
  if (file.size > MAX_IMAGE_BYTES) return `"${file.name}" is ${megabytes(file.size)}; images can be at most ${megabytes(MAX_IMAGE_BYTES)}. Resize it and try again.`;
  return undefined;
}

export function refuseUrl(url: string, agent: Agent | undefined): Refusal | undefined {
  if (agent && !agent.allow_image_attachment_url) return "This agent does not accept image links.";
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "An image link must start with https:// or http://.";
  } catch {
    return "That is not a valid link.";
  }
  return undefined;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
