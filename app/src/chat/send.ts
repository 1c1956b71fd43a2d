// Sending from the composer: the first send of a new chat creates the session; images are uploaded (stored as
// session assets) and sent as {type: "asset"}; links as {type: "image_url"}. The client_request_id makes a
// send retried after a lost answer start nothing new (DESIGN.md).
import type { Attachment, DeviceApi } from "../api/device-api.ts";
import type { PendingAttachment } from "../attachments/pending.ts";
import { upsertSession } from "../state/sessions.ts";
import { guarded } from "../state/sync.ts";

export interface Outgoing {
  session_id?: string;
  agent_id?: string;
  /** A model chosen before the session existed: applied right after it is created. */
  model?: string;
  text: string;
  attachments: PendingAttachment[];
  request_options: Record<string, string>;
  client_request_id: string;
}

export async function sendMessage(api: DeviceApi, outgoing: Outgoing): Promise<{ session_id: string; request_id: string }> {
  return guarded(async () => {
    const session_id = outgoing.session_id ?? (await createSession(api, outgoing));
    const attachments: Attachment[] = [];
    for (const attachment of outgoing.attachments) {
      if (attachment.kind === "url") attachments.push({ type: "image_url", url: attachment.url });
      else attachments.push({ type: "asset", asset_id: (await api.storeAttachment(session_id, attachment.file)).asset_id });
    }
    const request_id = await api.send(session_id, {
      content: outgoing.text,
      client_request_id: outgoing.client_request_id,
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(Object.keys(outgoing.request_options).length > 0 ? { request_options: outgoing.request_options } : {}),
    });
    return { session_id, request_id };
  });
}

async function createSession(api: DeviceApi, outgoing: Outgoing): Promise<string> {
  let session = await api.createSession(outgoing.agent_id);
  if (outgoing.model) session = await api.updateSession(session.id, { model: outgoing.model }).catch(() => session);
  upsertSession(session);
  return session.id;
}
