// Sending from the composer: the first send of a new chat creates the session; images are uploaded (stored as
// session assets) and sent as {type: "asset"}; links as {type: "image_url"}; documents (in the library already) as
// {type: "document", document_id}. The client_request_id makes a
// send retried after a lost answer start nothing new (docs/runner.md "Idempotent sends").
import type { ChatClient, SendAttachment, Session } from "../../../client/index.ts";
import type { PendingAttachment } from "../attachments/pending.ts";

export interface Outgoing {
  session_id?: string;
  agent_id?: string;
  /** A model chosen before the session existed: applied right after it is created. */
  model?: string;
  text: string;
  attachments: PendingAttachment[];
  request_options: Record<string, string>;
  client_request_id: string;
  /** A new chat's id of its own: a repeated creation (a retry, the outbox) answers the chat the first one made. */
  client_session_id?: string;
}

export interface SendHooks {
  /** The new chat's session, as soon as it exists (the list shows it before the reply). */
  created(session: Session): void;
  report(message: string, detail: unknown): void;
}

/** `signal` gives the send up (the outbox's, which waits no longer than a while): each call it makes aborts. */
export async function sendMessage(
  client: ChatClient,
  outgoing: Outgoing,
  hooks: SendHooks,
  { signal }: { signal?: AbortSignal } = {},
): Promise<{ session_id: string; request_id: string }> {
  const session_id = outgoing.session_id ?? (await createSession(client, outgoing, hooks, signal));
  const attachments: SendAttachment[] = [];
  for (const attachment of outgoing.attachments) {
    if (attachment.kind === "url") {
      attachments.push({ type: "image_url", url: attachment.url });
      continue;
    }
    if (attachment.kind === "document") {
      const document_id = attachment.record.value?.id;
      if (document_id) attachments.push({ type: "document", document_id });
      continue;
    }
    const bytes = new Uint8Array(await attachment.file.arrayBuffer());
    const stored = await client.storeAttachment(session_id, {
      bytes,
      media_type: attachment.file.type,
      filename: attachment.file.name,
    });
    attachments.push({ type: "asset", asset_id: stored.asset_id });
  }
  const sent = await client.send(session_id, {
    content: outgoing.text,
    client_request_id: outgoing.client_request_id,
    signal,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(Object.keys(outgoing.request_options).length > 0 ? { request_options: outgoing.request_options } : {}),
  });
  return { session_id, request_id: sent.request_id };
}

async function createSession(
  client: ChatClient,
  outgoing: Outgoing,
  hooks: SendHooks,
  signal: AbortSignal | undefined,
): Promise<string> {
  let session = await client.createSession({
    ...(outgoing.agent_id ? { agent_id: outgoing.agent_id } : {}),
    ...(outgoing.client_session_id ? { client_session_id: outgoing.client_session_id } : {}),
    signal,
  });
  // The model is a preference: a refusal leaves the chat on the agent's default rather than failing the send.
  if (outgoing.model) {
    const created = session;
    session = await client
      .updateSession(session.id, { model: outgoing.model }, { signal })
      .catch((error: unknown) => (hooks.report("setting the new chat's model failed", error), created));
  }
  hooks.created(session);
  return session.id;
}
