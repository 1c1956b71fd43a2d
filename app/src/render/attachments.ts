// The images a message carries (its metadata.attachments, as the send route stored them), read with zod since
// the metadata is free-form: only image links over http(s), image data URLs of the accepted types, and stored
// assets are shown; anything else is left out rather than put into an <img src>.
import { z } from "zod";

const attachmentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("image_url"), url: z.string().max(8192) }),
  z.object({ type: z.literal("image_data"), data_url: z.string() }),
  z.object({ type: z.literal("asset"), asset_id: z.string().min(1).max(200) }),
]);

/** An image to show: a URL the page may load now, or a stored asset to fetch (with the device's credentials). */
export type ShownImage = { kind: "url"; url: string } | { kind: "asset"; assetId: string };

const IMAGE_DATA_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$/;

function isWebUrl(text: string): boolean {
  try {
    const protocol = new URL(text).protocol;
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

/** The showable images of a message's metadata.attachments (anything else there is ignored). */
export function imagesOf(attachments: unknown): ShownImage[] {
  if (!Array.isArray(attachments)) return [];
  const images: ShownImage[] = [];
  for (const entry of attachments.slice(0, 50)) {
    const parsed = attachmentSchema.safeParse(entry);
    if (!parsed.success) continue;
    const attachment = parsed.data;
    if (attachment.type === "asset") images.push({ kind: "asset", assetId: attachment.asset_id });
    else if (attachment.type === "image_url" && isWebUrl(attachment.url))
      images.push({ kind: "url", url: attachment.url });
    else if (attachment.type === "image_data" && IMAGE_DATA_URL.test(attachment.data_url))
      images.push({ kind: "url", url: attachment.data_url });
  }
  return images;
}
