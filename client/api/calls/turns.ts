// The typed calls of the turns routes (client/wire/routes/turns.ts): answering again, resending, versions.
import type { Session } from "../../wire/messages.ts";
import { regenerateRoute, resendMessageRoute, switchVersionRoute } from "../../wire/routes/turns.ts";
import { RouteCaller } from "../route-caller.ts";
import { clientRequestIdOf, type SendResult } from "./requests.ts";

export interface RegenerateOptions {
  /** A model for this one answer; the session's own stays for the next request. */
  model?: string;
  request_options?: Record<string, unknown>;
  client_request_id?: string;
  stream?: boolean;
}

export abstract class TurnCalls extends RouteCaller {
  /** Answers the last turn again; the replaced reply stays as a version. `model` applies to this one answer only. */
  async regenerate(sessionId: string, options: RegenerateOptions = {}): Promise<SendResult> {
    const client_request_id = clientRequestIdOf(options);
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
    const client_request_id = clientRequestIdOf(options);
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
}
