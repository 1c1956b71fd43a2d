// Where ChatClient.request sends a call (docs/client.md "Route choice"): straight to server_url, or through the
// bridge's API relay. `auto` goes direct while server_url answers; when it cannot be reached the call goes over the
// relay, and so do the calls after it, until `directProbeMs` has passed and direct HTTP is tried again (switching
// back as soon as it answers). A call is moved to the relay after a failed direct attempt only when repeating it
// cannot run an action twice: reads, sends (their client_request_id makes a repeat answer the first request_id),
// and any call whose connection was refused (it never reached the server). Any other call's failure is thrown as is;
// the next call goes over the relay. Once direct has failed, it is probed again only by a call that is safe to
// repeat: a browser's failed fetch is a bare TypeError that cannot say the request never left, so an action used as
// the probe would fail every `directProbeMs` while server_url stays unreachable.
import type { z } from "zod";
import { NetworkError } from "../transport/errors.ts";
import type { Requester, RequestOptions } from "../transport/http.ts";
import type { Timers } from "../util/timers.ts";
import { UPLOAD_PART_BYTES } from "../wire/routes/uploads.ts";

export type Route = "auto" | "direct" | "relay";

/** How long `auto` keeps to the relay before trying server_url again. */
export const DEFAULT_DIRECT_PROBE_MS = 30_000;

/** Error codes of a connection that never opened: the request was not sent, so sending it again is safe. */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export interface RouteChoiceOptions {
  route: Route;
  direct: Requester;
  relay: Requester;
  timers: Timers;
  directProbeMs?: number;
  /** Told when the route changes (for onProblem). */
  switched?(to: "direct" | "relay", why: unknown): void;
}

export class RouteChoice implements Requester {
  /** While set and in the future, `auto` sends over the relay. */
  private directDownUntil: number | undefined;

  constructor(private readonly options: RouteChoiceOptions) {}

  /** Where the next `auto` call goes first. */
  get current(): "direct" | "relay" {
    const { route, timers } = this.options;
    if (route !== "auto") return route;
    return this.directDownUntil !== undefined && timers.now() < this.directDownUntil ? "relay" : "direct";
  }

  /**
   * Whether a body of `bytes` goes in parts (docs/uploads.md): always through the relay, which carries JSON under one
   * frame; in `auto` also when it is larger than one part, so the upload can go on over the relay if direct HTTP
   * fails halfway. `direct` never.
   */
  sendsInParts(bytes: number): boolean {
    const { route } = this.options;
    if (route !== "auto") return route === "relay";
    return this.current === "relay" || bytes > UPLOAD_PART_BYTES;
  }

  async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>> {
    const { direct, relay } = this.options;
    const unconfirmed = this.directDownUntil !== undefined;
    if (this.current === "relay" || (unconfirmed && !repeatable(method, options)))
      return relay.request(method, path, schema, options);
    try {
      const answer = await direct.request(method, path, schema, options);
      if (this.directDownUntil !== undefined) this.options.switched?.("direct", undefined);
      this.directDownUntil = undefined;
      return answer;
    } catch (error) {
      if (this.options.route !== "auto" || !(error instanceof NetworkError) || options?.signal?.aborted) throw error;
      this.directDownUntil = this.options.timers.now() + (this.options.directProbeMs ?? DEFAULT_DIRECT_PROBE_MS);
      this.options.switched?.("relay", error);
      if (!safeToRepeat(method, options, error)) throw error;
      return relay.request(method, path, schema, options);
    }
  }
}

function safeToRepeat(method: string, options: RequestOptions | undefined, error: NetworkError): boolean {
  return repeatable(method, options) || neverSent(error);
}

/** A read, a send with its client_request_id or a new chat with its client_session_id: twice does nothing twice. */
function repeatable(method: string, options: RequestOptions | undefined): boolean {
  if (method === "GET") return true;
  const body = options?.body as { client_request_id?: unknown; client_session_id?: unknown } | undefined;
  return typeof body?.client_request_id === "string" || typeof body?.client_session_id === "string";
}

function neverSent(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_SENT.has(code)) return true;
  }
  return false;
}
