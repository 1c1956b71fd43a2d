// What a share link shows (docs/people.md "Share links"): the chat's shown messages when the link is made, built
// into the wire's SharedSnapshot. Only user and assistant messages are shown (a transcript has no system prompt or
// tool plumbing), without hidden versions; of the metadata only `sender` (who wrote it) and the images stay, each
// stored asset read into a data URL so the snapshot needs nothing else from the server to render.
import type { Message, Session } from "../../client/wire/messages.ts";
import { sessionTitle } from "../../client/wire/messages.ts";
import type { SharedSnapshot } from "../../client/wire/routes/share-links.ts";

/** Reads a stored asset of the chat: its media type and bytes (throws when it is gone). */
export type AssetReader = (assetId: string) => { media_type: string; bytes: Uint8Array };

const SHOWN_ROLES = new Set(["user", "assistant"]);

export function buildSnapshot(
  session: Session,
  ownerName: string | undefined,
  sharedAt: string,
  readAsset: AssetReader,
): SharedSnapshot {
  return {
    v: 1,
    title: sessionTitle(session),
    ...(ownerName === undefined ? {} : { owner_name: ownerName }),
    shared_at: sharedAt,
    messages: session.messages
      .filter((message) => SHOWN_ROLES.has(message.role))
      .map((message) => shownMessage(message, readAsset)),
  };
}

function shownMessage(message: Message, readAsset: AssetReader): Message {
  const metadata: Record<string, unknown> = {};
  if (message.metadata?.sender !== undefined) metadata.sender = message.metadata.sender;
  const images = imagesOf(message.metadata?.attachments, readAsset);
  if (images.length > 0) metadata.attachments = images;
  return {
    role: message.role,
    content: message.content,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

type ShownImage = { type: "image_data"; data_url: string } | { type: "image_url"; url: string };

/** The message's images as the snapshot carries them; documents and anything unreadable are left out. */
function imagesOf(attachments: unknown, readAsset: AssetReader): ShownImage[] {
  if (!Array.isArray(attachments)) return [];
  const images: ShownImage[] = [];
  for (const attachment of attachments as Array<Record<string, unknown>>) {
    if (typeof attachment !== "object" || attachment === null) continue;
    if (attachment.type === "image_data" && typeof attachment.data_url === "string")
      images.push({ type: "image_data", data_url: attachment.data_url });
    else if (attachment.type === "image_url" && typeof attachment.url === "string")
      images.push({ type: "image_url", url: attachment.url });
    else if (attachment.type === "asset" && typeof attachment.asset_id === "string") {
      const image = assetImage(attachment.asset_id, readAsset);
      if (image) images.push(image);
    }
  }
  return images;
}

function assetImage(assetId: string, readAsset: AssetReader): ShownImage | undefined {
  try {
    const { media_type, bytes } = readAsset(assetId);
    return { type: "image_data", data_url: `data:${media_type};base64,${Buffer.from(bytes).toString("base64")}` };
  } catch {
    return undefined; // deleted since it was attached: the transcript shows the message without it
  }
}
