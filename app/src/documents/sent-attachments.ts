// Which documents a sent message carries (its metadata.attachments as the send route stored them), read with zod since
// metadata is free-form; anything else there is someone else's (images: render/attachments.ts).
import { z } from "zod";

const documentAttachment = z.object({ type: z.literal("document"), document_id: z.string().min(1).max(100) });

export function documentIdsOf(attachments: unknown): string[] {
  if (!Array.isArray(attachments)) return [];
  return attachments.slice(0, 50).flatMap((entry) => {
    const parsed = documentAttachment.safeParse(entry);
    return parsed.success ? [parsed.data.document_id] : [];
  });
}
