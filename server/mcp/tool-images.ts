// Images an MCP tool returned (metadata.images of its tool message) reach the model as image parts where the
// backend accepts inline images (the provider's allow_image_attachment_base64). Chat-completions backends take
// only text in a `tool` message, so the images ride in a user message right after the run of tool messages, in
// what is sent only: the stored conversation is unchanged (docs/tools.md "A call").
import type { Message } from "../../client/wire/index.ts";

export function withToolImages(messages: Message[], acceptsImages: boolean): Message[] {
  if (!acceptsImages || !messages.some(hasImages)) return messages;
  const out: Message[] = [];
  let pending: Array<{ type: "image_data"; data_url: string }> = [];
  for (const message of messages) {
    if (message.role !== "tool" && pending.length > 0) {
      out.push(imagesMessage(pending));
      pending = [];
    }
    out.push(message);
    if (message.role === "tool" && hasImages(message)) {
      for (const image of message.metadata!.images as Array<{ data_url: string }>)
        pending.push({ type: "image_data", data_url: image.data_url });
    }
  }
  if (pending.length > 0) out.push(imagesMessage(pending));
  return out;
}

function hasImages(message: Message): boolean {
  const images = message.metadata?.images;
  return (
    message.role === "tool" &&
    Array.isArray(images) &&
    images.length > 0 &&
    images.every((i) => typeof (i as { data_url?: unknown })?.data_url === "string")
  );
}

function imagesMessage(attachments: Array<{ type: "image_data"; data_url: string }>): Message {
  return { role: "user", content: "(images returned by the tool calls above)", metadata: { attachments } };
}
