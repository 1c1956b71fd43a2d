// A chat as Markdown, for reading and sharing (docs/export.md "Markdown"): the title, then each message under its
// role, its text as written (it is Markdown already), images inline as data URLs so the file stands alone.
import type { Message, Session } from "../../client/wire/index.ts";
import { sessionTitle } from "../../client/wire/index.ts";
import type { ExportedAsset } from "./format.ts";

const ROLE_HEADINGS: Record<Message["role"], string> = {
  user: "User",
  assistant: "Assistant",
  system: "System",
  tool: "Tool",
};

export function chatMarkdown(session: Session, assets: ExportedAsset[]): string {
  const byId = new Map(assets.map((asset) => [asset.asset_id, asset]));
  const title = sessionTitle(session) || "Untitled chat";
  const about = [
    `Created ${session.created_at}`,
    `agent ${session.agent_id}`,
    ...(session.model ? [`model ${session.model}`] : []),
  ].join(" · ");
  const sections = session.messages.map((message) => {
    const images = attachmentsOf(message)
      .map((attachment) => image(attachment, byId))
      .filter((line) => line !== "");
    const name = typeof message.metadata?.["tool_name"] === "string" ? ` (${message.metadata["tool_name"]})` : "";
    return [`## ${ROLE_HEADINGS[message.role]}${name}`, message.content.trim(), ...images]
      .filter((part) => part !== "")
      .join("\n\n");
  });
  return `# ${title.replace(/\s+/g, " ")}\n\n_${about}_\n\n${sections.join("\n\n")}\n`;
}

function attachmentsOf(message: Message): Array<Record<string, unknown>> {
  const attachments = message.metadata?.["attachments"];
  return Array.isArray(attachments)
    ? attachments.filter((a): a is Record<string, unknown> => a !== null && typeof a === "object")
    : [];
}

function image(attachment: Record<string, unknown>, assets: Map<string, ExportedAsset>): string {
  if (attachment["type"] === "image_url" && typeof attachment["url"] === "string")
    return `![image](<${attachment["url"]}>)`;
  if (attachment["type"] === "image_data" && typeof attachment["data_url"] === "string")
    return `![image](<${attachment["data_url"]}>)`;
  const asset = typeof attachment["asset_id"] === "string" ? assets.get(attachment["asset_id"]) : undefined;
  if (asset) return `![${asset.filename ?? "image"}](<data:${asset.media_type};base64,${asset.data}>)`;
  return "";
}
