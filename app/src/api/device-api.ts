// What a paired device asks the server: sessions, messages, sends, cancels, attachments, agents and models.
// Screens call these methods, never fetch, so a later relay route (issue 14) changes only this layer.
import { z } from "zod";
import type { Credentials } from "../../../client/index.ts";
import { Gateway } from "./gateway.ts";
import { agentListSchema, modelListSchema, sendAcceptedSchema, sessionBodySchema, sessionListSchema, storedAttachmentSchema, type Agent } from "./schemas.ts";

export type Attachment = { type: "image_url"; url: string } | { type: "asset"; asset_id: string };

export interface SendInput {
  content: string;
  attachments?: Attachment[];
  request_options?: Record<string, string>;
  /** Lets a retried send after a lost answer start nothing new (DESIGN.md). */
  client_request_id: string;
}

const anyBody = z.unknown();

export class DeviceApi {
  private readonly gateway: Gateway;

  constructor(credentials: Credentials, fetchImpl?: typeof fetch) {
    this.gateway = new Gateway({ baseUrl: credentials.server_url, token: credentials.device_token, fetch: fetchImpl });
  }

  async listSessions() {
    return (await this.gateway.request("GET", "/sessions", sessionListSchema)).sessions;
  }

  async createSession(agent_id?: string) {
    return (await this.gateway.request("POST", "/sessions", sessionBodySchema, { body: agent_id ? { agent_id } : {} })).session;
  }

  async forkSession(session_id: string) {
    return (await this.gateway.request("POST", `/sessions/${enc(session_id)}/fork`, sessionBodySchema, { body: {} })).session;
  }

  async updateSession(session_id: string, patch: { title?: string; model?: string | null }) {
    return (await this.gateway.request("PATCH", `/sessions/${enc(session_id)}`, sessionBodySchema, { body: patch })).session;
  }

  async send(session_id: string, input: SendInput): Promise<string> {
    return (await this.gateway.request("POST", `/sessions/${enc(session_id)}/send`, sendAcceptedSchema, { body: input })).request_id;
  }

  async cancel(session_id: string, request_id: string): Promise<void> {
    await this.gateway.request("POST", `/sessions/${enc(session_id)}/requests/${enc(request_id)}/cancel`, anyBody, { body: {} });
  }

  async editMessage(session_id: string, index: number, content: string): Promise<void> {
    await this.gateway.request("PATCH", `/sessions/${enc(session_id)}/messages/${index}`, anyBody, { body: { content } });
  }

  async deleteMessages(session_id: string, indices: number[]): Promise<void> {
    await this.gateway.request("DELETE", `/sessions/${enc(session_id)}/messages`, anyBody, { body: { indices } });
  }

  async storeAttachment(session_id: string, file: Blob) {
    const path = `/sessions/${enc(session_id)}/extensions/reference_compatible_attachments/store_attachment`;
    return this.gateway.request("POST", path, storedAttachmentSchema, { rawBody: file });
  }

  async listAgents(): Promise<Agent[]> {
    return (await this.gateway.request("GET", "/agents", agentListSchema)).agents;
  }

  async listModels(agent: Agent): Promise<string[]> {
    const path = `/providers/${enc(agent.provider_id)}/models?agent_id=${enc(agent.agent_id)}`;
    const body = await this.gateway.request("GET", path, modelListSchema);
    return body.models.map((model) => (typeof model === "string" ? model : model.id));
  }
}

function enc(value: string): string {
  return encodeURIComponent(value);
}
