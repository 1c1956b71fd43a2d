// The app-facing server calls, typed and zod-checked (the answer schemas live in client/wire/api.ts). Every
// method goes through the one abstract `request`, which ChatClient implements: routing every call through the
// bridge relay later, or reacting to a revoked token, happens in that one place.
import { z } from "zod";
import {
  agentListSchema,
  appendedMessageSchema,
  cancelAcceptedSchema,
  deviceRevokedSchema,
  clientRequestIdSchema,
  deletedAttachmentSchema,
  modelListSchema,
  sendAcceptedSchema,
  sessionEnvelopeSchema,
  sessionListSchema,
  sessionUpdateSchema,
  storedAttachmentSchema,
  type AgentView,
  type DeviceRecord,
  type ModelList,
  type SendAttachment,
  type SessionSummary,
  type SessionUpdate,
  type StoredAttachment,
} from "../wire/api.ts";
import type { Message, Role, Session } from "../wire/messages.ts";
import type { BinaryBody, Query, RequestOptions } from "../transport/http.ts";
import { bytesToBase64 } from "../util/base64.ts";
import { newClientRequestId } from "../util/ids.ts";
import { routePath, type RouteAnswer, type RouteContract, type RouteInput } from "../wire/routes/route.ts";
import { searchRoute, type SearchResult } from "../wire/routes/search.ts";
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
  /** Makes the send safe to repeat: the server answers a repeat within 10 minutes with the first request_id. Generated when absent. */
  client_request_id?: string;
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

const binaryBodySchema = z.custom<BinaryBody>(
  (value) => typeof value === "object" && value !== null && (value as BinaryBody).bytes instanceof Uint8Array,
);
const ATTACHMENTS = "/extensions/reference_compatible_attachments";

export abstract class ServerApi {
  /** The one request function: every call below goes through it. */
  abstract request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>>;

  /**
   * Calls a route by its wire contract (client/wire/routes/): the path is built from the contract's parameters and
   * the answer parsed with its schema. Every method below is one such call; no path is spelled here.
   */
  protected call<C extends RouteContract>(
    contract: C,
    input: RouteInput<C>,
    options: Pick<RequestOptions, "signal" | "expect"> = {},
  ): Promise<RouteAnswer<C>> {
    const { params, query, body } = input as {
      params?: Record<string, string | number>;
      query?: Query;
      body?: unknown;
    };
    const path = routePath(contract.path, params);
    return this.request(contract.method, path, contract.answer, { ...options, query, body }) as Promise<RouteAnswer<C>>;
  }

  /** Chats whose text or title matches `q` (words in any order, prefixes), best match first. */
  async search(q: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    const answer = await this.call(searchRoute, { query: { q, limit: options.limit } }, { signal: options.signal });
    return answer.results;
  }

  /**
   * Pinned first, then newest activity; summaries only (no messages: load them with loadMessages). Archived sessions
   * are left out unless asked for: `archived: "only"` lists them alone, `"include"` lists all.
   */
  async listSessions(options: { archived?: "only" | "include" } = {}): Promise<SessionSummary[]> {
    return (await this.request("GET", "/sessions", sessionListSchema, { query: { archived: options.archived } }))
      .sessions;
  }

  /** Deletes the session everywhere (a running request is cancelled first); `session_deleted` follows. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.request("DELETE", sessionPath(sessionId), z.unknown());
  }

  async getSession(sessionId: string): Promise<Session> {
    return (await this.request("GET", sessionPath(sessionId), sessionEnvelopeSchema)).session;
  }

  async createSession(options: { agent_id?: string } = {}): Promise<Session> {
    return (await this.request("POST", "/sessions", sessionEnvelopeSchema, { body: options })).session;
  }

  async forkSession(sessionId: string): Promise<Session> {
    return (await this.request("POST", `${sessionPath(sessionId)}/fork`, sessionEnvelopeSchema, { body: {} })).session;
  }

  /** Renames (title; null goes back to the first user message) and/or overrides the model (null clears it). */
  async updateSession(sessionId: string, update: SessionUpdate): Promise<Session> {
    const body = sessionUpdateSchema.parse(update);
    return (await this.request("PATCH", sessionPath(sessionId), sessionEnvelopeSchema, { body })).session;
  }

  async send(sessionId: string, options: SendOptions): Promise<SendResult> {
    const client_request_id = clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
    const body = { ...options, client_request_id };
    const accepted = await this.request("POST", `${sessionPath(sessionId)}/send`, sendAcceptedSchema, { body });
    return { request_id: accepted.request_id, client_request_id };
  }

  /** Answers the last turn again; the replaced reply stays as a version. `model` applies to this one answer only. */
  async regenerate(sessionId: string, options: RegenerateOptions = {}): Promise<SendResult> {
    const client_request_id = clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
    const body = { ...options, client_request_id };
    const accepted = await this.request("POST", `${sessionPath(sessionId)}/regenerate`, sendAcceptedSchema, { body });
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
    const path = `${sessionPath(sessionId)}/messages/${index}/resend`;
    const accepted = await this.request("POST", path, sendAcceptedSchema, { body: { content, client_request_id } });
    return { request_id: accepted.request_id, client_request_id };
  }

  /** Shows version `version` (1-based) of the turn holding message `index`. */
  async switchVersion(sessionId: string, index: number, version: number): Promise<Session> {
    const path = `${sessionPath(sessionId)}/messages/${index}/version`;
    return (await this.request("POST", path, sessionEnvelopeSchema, { body: { version } })).session;
  }

  /** The session as a file: `markdown` (text/markdown) or `json` (the lossless export). */
  async exportSession(sessionId: string, format: "markdown" | "json"): Promise<BinaryBody> {
    return this.request("GET", `${sessionPath(sessionId)}/export`, binaryBodySchema, {
      query: { format },
      expect: "bytes",
    });
  }

  /** This device's own record (a device token; the admin token has no device). */
  async getSelfDevice(): Promise<DeviceRecord> {
    return (await this.request("GET", "/devices/self", deviceRevokedSchema)).device;
  }

  async renameSelfDevice(name: string): Promise<DeviceRecord> {
    return (await this.request("PATCH", "/devices/self", deviceRevokedSchema, { body: { name } })).device;
  }

  /** Revokes this device on the server (its token stops working at once); then forget the credentials. */
  async unpairSelfDevice(): Promise<DeviceRecord> {
    return (await this.request("DELETE", "/devices/self", deviceRevokedSchema)).device;
  }

  async cancel(sessionId: string, requestId: string): Promise<void> {
    await this.request(
      "POST",
      `${sessionPath(sessionId)}/requests/${encodeURIComponent(requestId)}/cancel`,
      cancelAcceptedSchema,
      { body: {} },
    );
  }

  async appendMessage(
    sessionId: string,
    message: { role: Role; content: string; metadata?: Record<string, unknown> },
  ): Promise<{ session: Session; message: Message }> {
    return this.request("POST", `${sessionPath(sessionId)}/messages`, appendedMessageSchema, { body: message });
  }

  async modifyMessage(sessionId: string, index: number, content: string): Promise<Session> {
    return (
      await this.request("PATCH", `${sessionPath(sessionId)}/messages/${index}`, sessionEnvelopeSchema, {
        body: { content },
      })
    ).session;
  }

  async deleteMessages(sessionId: string, indices: number[]): Promise<Session> {
    return (
      await this.request("DELETE", `${sessionPath(sessionId)}/messages`, sessionEnvelopeSchema, { body: { indices } })
    ).session;
  }

  /** Uploads an image (as base64 JSON, so the call also fits a JSON relay); send it as {type: "asset", asset_id}. */
  async storeAttachment(sessionId: string, input: AttachmentInput): Promise<StoredAttachment> {
    const body = {
      data_base64: bytesToBase64(input.bytes),
      ...(input.media_type ? { media_type: input.media_type } : {}),
      ...(input.filename ? { filename: input.filename } : {}),
    };
    return this.request("POST", `${sessionPath(sessionId)}${ATTACHMENTS}/store_attachment`, storedAttachmentSchema, {
      body,
    });
  }

  async deleteAttachment(sessionId: string, assetId: string): Promise<void> {
    await this.request("POST", `${sessionPath(sessionId)}${ATTACHMENTS}/delete_attachment`, deletedAttachmentSchema, {
      body: { asset_id: assetId },
    });
  }

  /** The stored bytes and their type (a browser shows them with URL.createObjectURL(new Blob([bytes], {type}))). */
  async downloadAttachment(sessionId: string, assetId: string): Promise<BinaryBody> {
    const path = `${sessionPath(sessionId)}${ATTACHMENTS}/download_attachment`;
    return this.request("POST", path, binaryBodySchema, { body: { asset_id: assetId }, expect: "bytes" });
  }

  async listAgents(): Promise<AgentView[]> {
    return (await this.request("GET", "/agents", agentListSchema)).agents;
  }

  /** Discovered models of a provider; `agent_id` applies that agent's overrides (base_url, key). */
  async listModels(providerId: string, options: { agent_id?: string } = {}): Promise<ModelList> {
    return this.request("GET", `/providers/${encodeURIComponent(providerId)}/models`, modelListSchema, {
      query: { agent_id: options.agent_id },
    });
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
}

function sessionPath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}
