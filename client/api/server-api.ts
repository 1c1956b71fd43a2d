// The app-facing server calls, typed and zod-checked: one method per route a device calls, each through the route's
// contract in the wire (client/wire/routes/), so no path is spelled here. Every method goes through the one abstract
// `request`, which ChatClient implements: routing every call through the bridge relay, or reacting to a revoked
// token, happens in that one place.
import type { z } from "zod";
import {
  clientRequestIdSchema,
  sessionUpdateSchema,
  type AgentView,
  type DeviceRecord,
  type PairingCreated,
  type ModelList,
  type SendAttachment,
  type SessionSummary,
  type SessionUpdate,
  type StoredAttachment,
} from "../wire/api.ts";
import { pagedSessionSchema, type Message, type PagedSession, type Role, type Session } from "../wire/messages.ts";
import type { NotificationRecord } from "../wire/notification.ts";
import type { BinaryBody, Requester, RequestOptions } from "../transport/http.ts";
import { bytesToBase64 } from "../util/base64.ts";
import { newClientRequestId } from "../util/ids.ts";
import type { RouteAnswer, RouteContract, RouteInput } from "../wire/routes/route.ts";
import { searchRoute, type SearchResult } from "../wire/routes/search.ts";
import { speechRoute, speechStatusRoute, transcriptionRoute, type SpeechStatus } from "../wire/routes/speech.ts";
import {
  auditRoute,
  createPersonRoute,
  listPeopleRoute,
  myPersonRoute,
  peopleDirectoryRoute,
  removePersonRoute,
  updatePersonRoute,
  type AuditEntry,
  type DirectoryEntry,
  type Person,
} from "../wire/routes/people.ts";
import {
  appendMessageRoute,
  createSessionRoute,
  deleteMessagesRoute,
  deleteSessionRoute,
  forkSessionRoute,
  getSessionRoute,
  listSessionsRoute,
  modifyMessageRoute,
  updateSessionRoute,
} from "../wire/routes/sessions.ts";
import { cancelRoute, sendRoute } from "../wire/routes/requests.ts";
import { regenerateRoute, resendMessageRoute, switchVersionRoute } from "../wire/routes/turns.ts";
import { exportSessionRoute } from "../wire/routes/export.ts";
import { renameSelfDeviceRoute, selfDeviceRoute, unpairSelfDeviceRoute } from "../wire/routes/devices-self.ts";
import { deleteAttachmentRoute, downloadAttachmentRoute, storeAttachmentRoute } from "../wire/routes/assets.ts";
import { agentsRoute, modelsRoute } from "../wire/routes/providers.ts";
import {
  changePushSettingsRoute,
  pushKeyRoute,
  pushSettingsRoute,
  subscribePushRoute,
  unsubscribePushRoute,
} from "../wire/routes/push.ts";
import { respondRoute } from "../wire/routes/interactions.ts";
import {
  applicationActionsRoute,
  invokeApplicationActionRoute,
  invokeSessionActionRoute,
  sessionActionsRoute,
} from "../wire/routes/actions.ts";
import { eventsRoute } from "../wire/routes/events.ts";
import { loadMessagesRoute } from "../wire/routes/sessions.ts";
import { contentKeysRoute } from "../wire/routes/e2e.ts";
import { createPairingRoute, listDevicesRoute, revokeDeviceRoute } from "../wire/routes/pairing.ts";
import { shareSessionRoute, unshareSessionRoute, type ShareAccess } from "../wire/routes/shares.ts";
import {
  createShareLinkRoute,
  listShareLinksRoute,
  revokeShareLinkRoute,
  sharedBlobRoute,
  type ShareLink,
  type ShareLinkCreated,
  type SharedBlob,
} from "../wire/routes/share-links.ts";
import type { EventsPage, MessagesSnapshot } from "../wire/http.ts";
import type { SealedContentKey } from "../wire/e2e.ts";
import { callRoute } from "./call-route.ts";
import { uploadInParts, type UploadOptions } from "./uploads.ts";
import {
  addDocumentRoute,
  chatDocumentTextRoute,
  listDocumentsRoute,
  type DocumentPage,
} from "../wire/routes/documents.ts";
import type { DocumentRecord } from "../wire/events.ts";
import { ProtocolError } from "../transport/errors.ts";
import { fetchDocumentFile, type DocumentFileOptions } from "./document-file.ts";
import {
  getSettingsRoute,
  patchSettingsRoute,
  testProviderRoute,
  type ProviderTest,
  type SettingsView,
} from "../wire/routes/settings.ts";
import { mcpReportRoute, restartMcpServerRoute, type McpServerReport } from "../wire/routes/mcp.ts";
import {
  createPromptRoute,
  deletePromptRoute,
  getPersonalSettingsRoute,
  listPromptsRoute,
  patchPersonalSettingsRoute,
  updatePromptRoute,
  type PersonalSettings,
  type Prompt,
} from "../wire/routes/personal.ts";

export interface SendOptions {
  content: string;
  attachments?: SendAttachment[];
  request_options?: Record<string, unknown>;
  /** Default true (the server's default). */
  stream?: boolean;
  /** Makes the send safe to repeat: the server answers a repeat (while the chat exists) with the first request_id. Generated when absent. */
  client_request_id?: string;
}

/** A page of the chat list and the cursor of the next one (null after the last). */
export interface SessionPage {
  sessions: SessionSummary[];
  next_before: string | null;
}

export interface SendResult {
  request_id: string;
  /** The id the send carried: pass it again to retry this very send after a network failure. */
  client_request_id: string;
}

export interface RegenerateOptions {
  /** A model for this one answer; the session's own stays for the next request. */
  model?: string;
  request_options?: Record<string, unknown>;
  client_request_id?: string;
  stream?: boolean;
}

export interface AttachmentInput {
  /** The image's bytes; the server checks the type by content and the size against its limit. */
  bytes: Uint8Array;
  media_type?: string;
  filename?: string;
}

/** A browser's PushSubscription as JSON (PushSubscription.toJSON()). */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

/** An answer to an interaction (an approval): approve, or deny with what the model is told. */
export type InteractionAnswer = { response: "approve"; message?: string } | { response: "deny"; message?: string };

export abstract class ServerApi implements Requester {
  /** The one request function: every call below goes through it. */
  abstract request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>>;

  /** Calls a route by its wire contract (call-route.ts): every method below is one such call. */
  protected call<C extends RouteContract>(
    contract: C,
    input: RouteInput<C>,
    options: Pick<RequestOptions, "signal"> = {},
  ): Promise<RouteAnswer<C>> {
    return callRoute(this, contract, input, options);
  }

  /** Chats whose text or title matches `q` (words in any order, prefixes), best match first. */
  async search(q: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    const answer = await this.call(searchRoute, { query: { q, limit: options.limit } }, { signal: options.signal });
    return answer.results;
  }

  /** Which speech the server offers (STT, TTS, voices), so an app shows only the controls that work. */
  async speechStatus(): Promise<SpeechStatus> {
    return this.call(speechStatusRoute, {});
  }

  /**
   * Whether a body of `bytes` goes in parts (docs/uploads.md). Here never: ChatClient says so when the call would go
   * through the bridge relay, which carries JSON under one frame.
   */
  protected sendsInParts(_bytes: number): boolean {
    return false;
  }

  /**
   * The recording's text. `media_type` is the recorder's (`audio/webm;codecs=opus`, `audio/mp4`, `audio/wav`, …).
   * Through the relay the recording goes in parts by itself; `onProgress` tells how much has arrived.
   */
  async transcribe(audio: { bytes: Uint8Array; media_type: string }, options: UploadOptions = {}): Promise<string> {
    const { signal, onProgress } = options;
    if (this.sendsInParts(audio.bytes.length)) {
      const body = { kind: "audio" as const, content_type: audio.media_type, bytes: audio.bytes };
      const answer = await uploadInParts(this, body, options);
      if (!("text" in answer)) throw new ProtocolError("an audio upload was answered as a document");
      return answer.text;
    }
    const body: BinaryBody = { media_type: audio.media_type, bytes: audio.bytes };
    const answer = await this.call(transcriptionRoute, { body }, { signal });
    onProgress?.({ sent: audio.bytes.length, total: audio.bytes.length });
    return answer.text;
  }

  /**
   * Adds a file to the library (docs/documents.md); it is read in the background (`document_updated` follows). Its
   * type is detected from its bytes and name; `media_type` is only a claim. Through the relay it goes in parts by
   * itself; `onProgress` tells how much has arrived.
   */
  async addDocument(
    file: { bytes: Uint8Array; name: string; media_type?: string },
    options: UploadOptions = {},
  ): Promise<DocumentRecord> {
    const { signal, onProgress } = options;
    const media_type = file.media_type ?? "application/octet-stream";
    if (this.sendsInParts(file.bytes.length)) {
      const body = { kind: "document" as const, name: file.name, content_type: media_type, bytes: file.bytes };
      const answer = await uploadInParts(this, body, options);
      if (!("document" in answer)) throw new ProtocolError("a document upload was answered as a transcription");
      return answer.document;
    }
    const body: BinaryBody = { media_type, bytes: file.bytes };
    const answer = await this.call(addDocumentRoute, { query: { name: file.name }, body }, { signal });
    onProgress?.({ sent: file.bytes.length, total: file.bytes.length });
    return answer.document;
  }

  /** `text` spoken by the server's TTS: the audio's bytes and media type. */
  async speak(
    text: string,
    options: { voice?: string; format?: "mp3" | "wav" | "opus"; signal?: AbortSignal } = {},
  ): Promise<BinaryBody> {
    const { signal, ...rest } = options;
    return this.call(speechRoute, { body: { text, ...rest } }, { signal });
  }

  /**
   * Pinned first, then newest activity; summaries only (no messages: load them with loadMessages). Archived sessions
   * are left out unless asked for: `archived: "only"` lists them alone, `"include"` lists all.
   */
  async listSessions(options: { archived?: "only" | "include" } = {}): Promise<SessionSummary[]> {
    return (await this.call(listSessionsRoute, { query: { archived: options.archived } })).sessions;
  }

  /**
   * One page of the list in the same order (docs/sessions.md "History in pages"): at most `limit` summaries after
   * the row `before` names (an earlier page's `next_before`), and the cursor of the next page (null after the last).
   */
  async listSessionsPage(page: { limit: number; before?: string }): Promise<SessionPage> {
    const answer = await this.call(listSessionsRoute, { query: { limit: page.limit, before: page.before } });
    return { sessions: answer.sessions, next_before: answer.next_before ?? null };
  }

  /** Deletes the session everywhere (a running request is cancelled first); `session_deleted` follows. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.call(deleteSessionRoute, { params: { session_id: sessionId }, body: undefined });
  }

  async getSession(sessionId: string): Promise<Session> {
    return (await this.call(getSessionRoute, { params: { session_id: sessionId } })).session;
  }

  /**
   * The session with only the last `limit` shown messages before index `before` (the end without it), plus
   * `messages_total` and `messages_start` (docs/sessions.md "History in pages").
   */
  async getSessionPage(sessionId: string, page: { limit?: number; before?: number }): Promise<PagedSession> {
    const query = { messages_limit: page.limit, messages_before: page.before };
    const { session } = await this.call(getSessionRoute, { params: { session_id: sessionId }, query });
    return pagedSessionSchema.parse(session);
  }

  /** With `client_session_id`, a repeat (a retry, an outbox) answers the chat the first call created. */
  async createSession(options: { agent_id?: string; client_session_id?: string } = {}): Promise<Session> {
    return (await this.call(createSessionRoute, { body: options })).session;
  }

  async forkSession(sessionId: string): Promise<Session> {
    return (await this.call(forkSessionRoute, { params: { session_id: sessionId }, body: {} })).session;
  }

  /** Renames (title; null goes back to the first user message) and/or overrides the model (null clears it). */
  async updateSession(sessionId: string, update: SessionUpdate): Promise<Session> {
    const body = sessionUpdateSchema.parse(update);
    return (await this.call(updateSessionRoute, { params: { session_id: sessionId }, body })).session;
  }

  async send(sessionId: string, options: SendOptions): Promise<SendResult> {
    const client_request_id = clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
    const body = { ...options, client_request_id };
    const accepted = await this.call(sendRoute, { params: { session_id: sessionId }, body });
    return { request_id: accepted.request_id, client_request_id };
  }

  /** Answers the last turn again; the replaced reply stays as a version. `model` applies to this one answer only. */
  async regenerate(sessionId: string, options: RegenerateOptions = {}): Promise<SendResult> {
    const client_request_id = clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
    const body = { ...options, client_request_id };
    const accepted = await this.call(regenerateRoute, { params: { session_id: sessionId }, body });
    return { request_id: accepted.request_id, client_request_id };
  }

  /** Replaces the user message at `index` (shown path) and what followed with a new version, and runs it. */
  async resendMessage(
    sessionId: string,
    index: number,
    content: string,
    options: { client_request_id?: string } = {},
  ): Promise<SendResult> {
    const client_request_id = clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
    const accepted = await this.call(resendMessageRoute, {
      params: { session_id: sessionId, index: String(index) },
      body: { content, client_request_id },
    });
    return { request_id: accepted.request_id, client_request_id };
  }

  /** Shows version `version` (1-based) of the turn holding message `index`. */
  async switchVersion(sessionId: string, index: number, version: number): Promise<Session> {
    const params = { session_id: sessionId, index: String(index) };
    return (await this.call(switchVersionRoute, { params, body: { version } })).session;
  }

  /** The session as a file: `markdown` (text/markdown) or `json` (the lossless export). */
  async exportSession(sessionId: string, format: "markdown" | "json"): Promise<BinaryBody> {
    return this.call(exportSessionRoute, { params: { session_id: sessionId }, query: { format } });
  }

  /** This device's own record (a device token; the admin token has no device). */
  async getSelfDevice(): Promise<DeviceRecord> {
    return (await this.call(selfDeviceRoute, {})).device;
  }

  async renameSelfDevice(name: string): Promise<DeviceRecord> {
    return (await this.call(renameSelfDeviceRoute, { body: { name } })).device;
  }

  /** Revokes this device on the server (its token stops working at once); then forget the credentials. */
  async unpairSelfDevice(): Promise<DeviceRecord> {
    return (await this.call(unpairSelfDeviceRoute, { body: undefined })).device;
  }

  async cancel(sessionId: string, requestId: string): Promise<void> {
    await this.call(cancelRoute, { params: { session_id: sessionId, request_id: requestId }, body: {} });
  }

  async appendMessage(
    sessionId: string,
    message: { role: Role; content: string; metadata?: Record<string, unknown> },
  ): Promise<{ session: Session; message: Message }> {
    return this.call(appendMessageRoute, { params: { session_id: sessionId }, body: message });
  }

  async modifyMessage(sessionId: string, index: number, content: string): Promise<Session> {
    const params = { session_id: sessionId, index: String(index) };
    return (await this.call(modifyMessageRoute, { params, body: { content } })).session;
  }

  async deleteMessages(sessionId: string, indices: number[]): Promise<Session> {
    return (await this.call(deleteMessagesRoute, { params: { session_id: sessionId }, body: { indices } })).session;
  }

  /** Uploads an image (as base64 JSON, so the call also fits a JSON relay); send it as {type: "asset", asset_id}. */
  async storeAttachment(sessionId: string, input: AttachmentInput): Promise<StoredAttachment> {
    const body = {
      data_base64: bytesToBase64(input.bytes),
      ...(input.media_type ? { media_type: input.media_type } : {}),
      ...(input.filename ? { filename: input.filename } : {}),
    };
    return this.call(storeAttachmentRoute, { params: { session_id: sessionId, action: "store_attachment" }, body });
  }

  async deleteAttachment(sessionId: string, assetId: string): Promise<void> {
    const params = { session_id: sessionId, action: "delete_attachment" as const };
    await this.call(deleteAttachmentRoute, { params, body: { asset_id: assetId } });
  }

  /** The stored bytes and their type (a browser shows them with URL.createObjectURL(new Blob([bytes], {type}))). */
  async downloadAttachment(sessionId: string, assetId: string): Promise<BinaryBody> {
    const params = { session_id: sessionId, action: "download_attachment" as const };
    return this.call(downloadAttachmentRoute, { params, body: { asset_id: assetId } });
  }

  async listDocuments(): Promise<DocumentRecord[]> {
    return (await this.call(listDocumentsRoute, {})).documents;
  }

  /** A page's text of a chat's copy of a document: readable by anyone who may read the chat, also once the library's
   *  document is deleted. */
  async chatDocumentText(sessionId: string, documentId: string, page: number): Promise<DocumentPage> {
    const params = { session_id: sessionId, document_id: documentId };
    return this.call(chatDocumentTextRoute, { params, query: { page } });
  }

  /** The file a chat's document was read from (a PDF to render), in parts that each fit one relayed call: for whoever
   *  may read the chat, while the library keeps the file (404 document_not_found once it is deleted). */
  async chatDocumentFile(sessionId: string, documentId: string, options?: DocumentFileOptions): Promise<BinaryBody> {
    return fetchDocumentFile(this, sessionId, documentId, options);
  }

  async listAgents(): Promise<AgentView[]> {
    return (await this.call(agentsRoute, {})).agents;
  }

  /** Discovered models of a provider; `agent_id` applies that agent's overrides (base_url, key). */
  async listModels(providerId: string, options: { agent_id?: string; endpoint?: string } = {}): Promise<ModelList> {
    return this.call(modelsRoute, { params: { provider_id: providerId }, query: options });
  }

  /** Answers an interaction (an approval) at the revision shown; a 409 ResponseError's body is the current record. */
  async respondToInteraction(
    sessionId: string,
    notificationId: string,
    answer: InteractionAnswer & { expected_revision?: number | string },
  ): Promise<NotificationRecord> {
    const params = { session_id: sessionId, notification_id: notificationId };
    return this.call(respondRoute, { params, body: answer });
  }

  /** The server's VAPID public key, which a browser subscribes with (404 push_not_configured when push is off). */
  async pushKey(): Promise<string> {
    return (await this.call(pushKeyRoute, {})).public_key;
  }

  /** Stores this device's browser subscription. */
  async subscribePush(subscription: PushSubscriptionJson): Promise<void> {
    await this.call(subscribePushRoute, { body: subscription });
  }

  /** Removes one of this device's browser subscriptions (silently, if it is not one). */
  async unsubscribePush(endpoint: string): Promise<void> {
    await this.call(unsubscribePushRoute, { body: { endpoint } });
  }

  /** Whether this device's pushes carry the text (preview) or only say that something happened. */
  async pushPreview(): Promise<boolean> {
    return (await this.call(pushSettingsRoute, {})).preview;
  }

  async setPushPreview(preview: boolean): Promise<boolean> {
    return (await this.call(changePushSettingsRoute, { body: { preview } })).preview;
  }

  /** A page of the event log (docs/events.md "`GET /events`"); ChatClient's reader and its repairs read it so. */
  async readEvents(
    query: RouteInput<typeof eventsRoute>["query"] = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<EventsPage> {
    return this.call(eventsRoute, { query }, options);
  }

  /** A session's messages and the event cursor they reflect (ChatClient.loadMessages adds what followed). */
  async messagesSnapshot(sessionId: string, limit?: number): Promise<MessagesSnapshot> {
    const query = limit === undefined ? {} : { limit };
    return this.call(loadMessagesRoute, { params: { session_id: sessionId }, query });
  }

  /** The content keys sealed to this device's public key (end-to-end encryption). */
  async contentKeys(options: { signal?: AbortSignal } = {}): Promise<SealedContentKey[]> {
    return (await this.call(contentKeysRoute, {}, options)).keys;
  }

  /** The actions of the application, or of a session's scope (a plugin's buttons). */
  async listActions(sessionId?: string): Promise<RouteAnswer<typeof applicationActionsRoute>["actions"]> {
    const answer =
      sessionId === undefined
        ? await this.call(applicationActionsRoute, {})
        : await this.call(sessionActionsRoute, { params: { session_id: sessionId } });
    return answer.actions;
  }

  /** Runs an action: an application action, or a session's when `sessionId` is given. */
  async invokeAction(
    name: string,
    input: unknown,
    sessionId?: string,
  ): Promise<RouteAnswer<typeof invokeApplicationActionRoute>> {
    const body = input === undefined ? {} : { input };
    return sessionId === undefined
      ? this.call(invokeApplicationActionRoute, { params: { name }, body })
      : this.call(invokeSessionActionRoute, { params: { session_id: sessionId, name }, body });
  }

  // People (docs/people.md): the directory and one's own person for every device; the rest needs the admin role.

  /** Live people's ids and names (to pick whom to share with). */
  async peopleDirectory(): Promise<DirectoryEntry[]> {
    return (await this.call(peopleDirectoryRoute, {})).people;
  }

  /** The person this device (or token) acts for. */
  async myPerson(): Promise<Person> {
    return (await this.call(myPersonRoute, {})).person;
  }

  async listPeople(): Promise<Person[]> {
    return (await this.call(listPeopleRoute, {})).people;
  }

  async createPerson(body: RouteInput<typeof createPersonRoute>["body"]): Promise<Person> {
    return (await this.call(createPersonRoute, { body })).person;
  }

  async updatePerson(personId: string, body: RouteInput<typeof updatePersonRoute>["body"]): Promise<Person> {
    return (await this.call(updatePersonRoute, { params: { person_id: personId }, body })).person;
  }

  /** Removes a person: their devices are revoked at once; their chats deleted, or transferred to `to`. */
  async removePerson(personId: string, chats: { chats: "delete" } | { chats: "transfer"; to: string }): Promise<void> {
    await this.call(removePersonRoute, { params: { person_id: personId }, query: chats });
  }

  async auditLog(): Promise<AuditEntry[]> {
    return (await this.call(auditRoute, {})).entries;
  }

  /** The server's settings as in force (admin), every secret as "set" (docs/settings.md). */
  getSettings(): Promise<SettingsView> {
    return this.call(getSettingsRoute, {});
  }

  /**
   * Changes the settings with a JSON merge patch made against `expectedRevision` (409 revision_mismatch when they
   * moved since); "set" keeps a stored secret. Applied at once, without a restart.
   */
  patchSettings(expectedRevision: number, patch: Record<string, unknown>): Promise<SettingsView> {
    return this.call(patchSettingsRoute, { body: { expected_revision: expectedRevision, patch } });
  }

  /** Lists a provider's models and, with `complete`, makes a one-token completion (hosted backends bill it). */
  testProvider(providerId: string, options: { complete?: boolean } = {}): Promise<ProviderTest> {
    return this.call(testProviderRoute, { params: { provider_id: providerId }, body: options });
  }

  /** Each MCP server as it runs (admin): status, tools with their approval, restarts, last error. */
  async listMcpServers(): Promise<McpServerReport[]> {
    return (await this.call(mcpReportRoute, {})).servers;
  }

  async restartMcpServer(name: string): Promise<void> {
    await this.call(restartMcpServerRoute, { params: { name } });
  }

  /** The caller's own instructions, default agent and default model. */
  getPersonalSettings(): Promise<PersonalSettings> {
    return this.call(getPersonalSettingsRoute, {});
  }

  updatePersonalSettings(change: Partial<PersonalSettings>): Promise<PersonalSettings> {
    return this.call(patchPersonalSettingsRoute, { body: change });
  }

  async listPrompts(): Promise<Prompt[]> {
    return (await this.call(listPromptsRoute, {})).prompts;
  }

  async createPrompt(input: { title: string; text: string }): Promise<Prompt> {
    return (await this.call(createPromptRoute, { body: input })).prompt;
  }

  async updatePrompt(id: string, change: { title?: string; text?: string }): Promise<Prompt> {
    return (await this.call(updatePromptRoute, { params: { prompt_id: id }, body: change })).prompt;
  }

  async deletePrompt(id: string): Promise<void> {
    await this.call(deletePromptRoute, { params: { prompt_id: id } });
  }

  // Devices by person (docs/people.md "Routes"): a device pairs, lists and revokes its own person's devices; an admin
  // person's device everyone's.

  /** A pairing code for the caller's person, or (admin role, audited) for `person_id`. */
  createPairing(options: { person_id?: string } = {}): Promise<PairingCreated> {
    return this.call(createPairingRoute, { body: options });
  }

  /** The caller's person's devices (every person's for the admin role), each with `person_id`. */
  async listDevices(): Promise<DeviceRecord[]> {
    return (await this.call(listDevicesRoute, {})).devices;
  }

  /** Revokes one of its person's devices (any, for the admin role), here and on the bridge at once. */
  async revokeDevice(deviceId: string): Promise<DeviceRecord> {
    return (await this.call(revokeDeviceRoute, { params: { device_id: deviceId } })).device;
  }

  // Sharing (docs/people.md "Sharing"): the owner's.

  /** Shares the chat with a person (or changes their access); answers the chat with its `shares`. */
  async shareSession(sessionId: string, personId: string, access: ShareAccess): Promise<Session> {
    return (
      await this.call(shareSessionRoute, { params: { session_id: sessionId }, body: { person_id: personId, access } })
    ).session;
  }

  /** Stops sharing the chat with a person: their devices get `session_access_revoked`. */
  async unshareSession(sessionId: string, personId: string): Promise<void> {
    await this.call(unshareSessionRoute, { params: { session_id: sessionId, person_id: personId } });
  }

  /**
   * Makes a share link to a snapshot of the chat as it is now (owner only): `url` carries the key in its fragment
   * and is given out only here. `expiresIn` in seconds (default 7 days, at most 90).
   */
  async createShareLink(sessionId: string, expiresIn?: number): Promise<ShareLinkCreated> {
    const body = expiresIn === undefined ? {} : { expires_in: expiresIn };
    return this.call(createShareLinkRoute, { params: { session_id: sessionId }, body });
  }

  /** The chat's live share links (owner only), oldest first, without their keys. */
  async listShareLinks(sessionId: string): Promise<ShareLink[]> {
    return (await this.call(listShareLinksRoute, { params: { session_id: sessionId } })).links;
  }

  /** Revokes a share link: from now on it is 404 share_link_not_found on the server and the bridge. */
  async revokeShareLink(sessionId: string, token: string): Promise<void> {
    await this.call(revokeShareLinkRoute, { params: { session_id: sessionId, token } });
  }

  /** The sealed blob of a share link (no credentials needed); `openSharedLink` fetches and opens it in one step. */
  async fetchSharedBlob(token: string): Promise<SharedBlob> {
    return this.call(sharedBlobRoute, { params: { token } });
  }
}
