// The typed calls of the requests routes (client/wire/routes/requests.ts): sending a message, cancelling its answer.
import { clientRequestIdSchema, type SendAttachment } from "../../wire/api.ts";
import { cancelRoute, sendRoute } from "../../wire/routes/requests.ts";
import { newClientRequestId } from "../../util/ids.ts";
import { RouteCaller } from "../route-caller.ts";

export interface SendOptions {
  content: string;
  attachments?: SendAttachment[];
  request_options?: Record<string, unknown>;
  /** Default true (the server's default). */
  stream?: boolean;
  /** Makes the send safe to repeat: the server answers a repeat (while the chat exists) with the first request_id. Generated when absent. */
  client_request_id?: string;
  /** Not sent: aborts the call (a caller that gives up waiting for the answer; the same client_request_id repeats it). */
  signal?: AbortSignal;
}

export interface SendResult {
  request_id: string;
  /** The id the send carried: pass it again to retry this very send after a network failure. */
  client_request_id: string;
}

/** The id a request-starting call carries: the caller's (checked), or a new one, so a retry can repeat it. */
export function clientRequestIdOf(options: { client_request_id?: string }): string {
  return clientRequestIdSchema.parse(options.client_request_id ?? newClientRequestId());
}

export abstract class RequestCalls extends RouteCaller {
  async send(sessionId: string, options: SendOptions): Promise<SendResult> {
    const { signal, ...fields } = options;
    const client_request_id = clientRequestIdOf(fields);
    const body = { ...fields, client_request_id };
    const accepted = await this.call(sendRoute, { params: { session_id: sessionId }, body }, { signal });
    return { request_id: accepted.request_id, client_request_id };
  }

  async cancel(sessionId: string, requestId: string): Promise<void> {
    await this.call(cancelRoute, { params: { session_id: sessionId, request_id: requestId }, body: {} });
  }
}
