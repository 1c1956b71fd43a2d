// The one place the app speaks HTTP to the server: a bearer token, JSON in and out, every answer checked with
// zod and every failure turned into a typed error the screens can explain. Only api/*.ts use it.
import type { z } from "zod";
import { HttpError, NetworkError, UnauthorizedError } from "../../../client/index.ts";
import { errorBodySchema } from "./schemas.ts";

export interface GatewayOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (an image upload); `contentType` names it. */
  rawBody?: Blob;
  contentType?: string;
  signal?: AbortSignal;
}

export class Gateway {
  constructor(private readonly options: GatewayOptions) {}

  async request<S extends z.ZodType>(method: string, path: string, schema: S, options: RequestOptions = {}): Promise<z.infer<S>> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    const json = parseJson(text);
    if (response.status === 401) throw new UnauthorizedError(401, errorCodeOf(json), json, errorMessageOf(json, 401));
    if (!response.ok) throw new HttpError(response.status, errorCodeOf(json), json, errorMessageOf(json, response.status));
    return schema.parse(json);
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    let body: BodyInit | undefined;
    if (options.rawBody) {
      body = options.rawBody;
      headers["content-type"] = options.contentType ?? options.rawBody.type;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const doFetch = this.options.fetch ?? fetch;
    try {
      return await doFetch(new URL(path.replace(/^\//, ""), withSlash(this.options.baseUrl)), { method, headers, body, signal: options.signal });
    } catch (error) {
      throw new NetworkError(error instanceof Error ? error.message : String(error));
    }
  }
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCodeOf(json: unknown): string {
  const parsed = errorBodySchema.safeParse(json);
  return parsed.success ? parsed.data.error.code : "http_error";
}

function errorMessageOf(json: unknown, status: number): string {
  const parsed = errorBodySchema.safeParse(json);
  return parsed.success ? parsed.data.error.message : `the server answered ${status}`;
}
