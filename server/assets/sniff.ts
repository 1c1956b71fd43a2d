// Media sniffing for image attachments: the bytes decide the type, never the name or a header alone. Only the
// four formats every chat-completions backend with vision accepts are allowed.
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The image type the magic number says, or undefined for anything else. */
export function sniffImageType(bytes: Uint8Array): ImageType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return undefined;
}

/** Lower-cased type without parameters; `image/jpg` (common, wrong) is read as image/jpeg. */
export function normalizeMediaType(value: string): string {
  const bare = value.split(";")[0]!.trim().toLowerCase();
  return bare === "image/jpg" ? "image/jpeg" : bare;
}

/** A `data:image/...;base64,...` URL split into its declared type and bytes, or undefined when it is not one. */
export function decodeDataUrl(url: string): { media_type: string; bytes: Buffer } | undefined {
  const match = /^data:([^;,]+)((?:;[^;,]+)*);base64,([A-Za-z0-9+/=\s]*)$/i.exec(url);
  if (!match) return undefined;
  return { media_type: normalizeMediaType(match[1]!), bytes: Buffer.from(match[3]!, "base64") };
}
