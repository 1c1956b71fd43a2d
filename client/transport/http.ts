// The HTTP side of the server: one place that adds the bearer token, encodes queries, parses JSON with zod and
// turns failures into the typed errors of errors.ts. `fetch` is injected (browsers, React Native, Node, tests).
import type { z } from "zod";
import { errorBodySchema } from "../wire/errors.ts";
import { NetworkError, ProtocolError, ResponseError, responseErrorFrom } from "./errors.ts";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch?: FetchLike;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** JSON, or a BinaryBody sent as its bytes with its media type (direct HTTP only: the relay carries JSON). */
  body?: unknown;
  signal?: AbortSignal;
  /** `bytes`: a 2xx body is not JSON; the schema then sees `{media_type, bytes}` (attachment downloads). */
  expect?: "json" | "bytes";
}

/** A 2xx body read as bytes (RequestOptions.expect = "bytes"). */
export interface BinaryBody {
  media_type: string;
  bytes: Uint8Array;
}

/** A body sent as its bytes (a recording, a file) rather than as JSON: the routes whose contract says `rawBody`. */
export function isBinaryBody(body: unknown): body is BinaryBody {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as BinaryBody).bytes instanceof Uint8Array &&
    typeof (body as BinaryBody).media_type === "string"
  );
}

/**
 * The one way the library asks the server anything. HttpApi speaks HTTP; ChatClient wraps it (revocation), and a
 * relay over the bridge can take its place without touching a caller.
 */
export interface Requester {
  request<S extends z.ZodType>(method: string, path: string, schema: S, options?: RequestOptions): Promise<z.infer<S>>;
}

export class HttpApi implements Requester {
  private readonly baseUrl: string;
  private readonly fetchImpl: FetchLike;

  constructor(private readonly options: HttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sends one request and parses a 2xx body with `schema`; throws the typed errors otherwise. */
  async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.infer<S>> {
    const response = await this.send(method, path, options);
    const body = response.ok && options.expect === "bytes" ? await readBytes(response) : await readJson(response);
    if (!response.ok) {
      const errorBody = errorBodySchema.safeParse(body);
      throw responseErrorFrom(response.status, body, errorBody.success ? errorBody.data : undefined);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ProtocolError(`${method} ${path}: unexpected answer: ${parsed.error.message}`);
    return parsed.data;
  }

  private async send(method: string, path: string, { query, body, signal }: RequestOptions): Promise<Response> {
    // An empty token calls an open route (GET /shared/…) with no credentials at all.
    const headers: Record<string, string> = this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
    const raw = isBinaryBody(body);
    if (body !== undefined) headers["content-type"] = raw ? body.media_type : "application/json";
    try {
      return await this.fetchImpl(this.baseUrl + path + encodeQuery(query), {
        method,
        headers,
        body: body === undefined ? undefined : raw ? (body.bytes as Uint8Array<ArrayBuffer>) : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw new NetworkError(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}

export function encodeQuery(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

async function readBytes(response: Response): Promise<BinaryBody> {
  try {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { media_type: response.headers.get("content-type") ?? "application/octet-stream", bytes };
  } catch (error) {
    throw new NetworkError(`reading the answer failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

async function readJson(response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The body was cut off (server killed mid-answer): as good as unreachable.
    throw new NetworkError(`reading the answer failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
