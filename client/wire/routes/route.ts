// A route's contract, declared once in the wire and read by both sides (docs/server.md "Route contracts"): the
// server parses a request's parameters, query and body with these schemas (server/http/serve-route.ts), and the
// library's ServerApi calls the route through them (client/api/server-api.ts), so a path, a field or an error code is
// spelled in one place. One file per route module beside this one; `index.ts` lists them all.
import { z } from "zod";
import { onFirstUse } from "../built-on-first-use.ts";
import type { HttpErrorCode } from "../errors.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteContract {
  method: HttpMethod;
  /** Fastify's spelling: `/sessions/:session_id/messages/:index`. */
  path: string;
  /** The path parameters, as strings from the URL (transforms turn them into numbers where they are). */
  params?: z.ZodType;
  query?: z.ZodType;
  /** JSON body; absent on routes that take none (or take raw bytes: see `rawBody`). */
  body?: z.ZodType;
  /** The route reads its body itself (uploads, a stream, a sealed call): the handler parses it, with this file's
   *  schemas where it is JSON. */
  rawBody?: true;
  /** The success answer's body; `noContent` for an empty answer (204), `bytesAnswer` with `bytes` for a file. */
  answer: z.ZodType;
  /** The answer is a file's bytes, not JSON (the library reads it so). */
  bytes?: true;
  /** The success status. */
  status: number;
  /** Every error code the route itself may answer, beyond the codes every route may (auth, invalid input, 413). */
  errors: readonly HttpErrorCode[];
  /** No bearer token needed (GET /health, the app's files, GET /app-config.json, GET /shared/…). */
  open?: true;
  /** A `notification_conflict` (409) answers the current record itself, not the error body (dismiss, respond). */
  conflictRecord?: true;
  /** Only the admin token may call it: anyone else is refused (403 forbidden) before the input is read. */
  admin?: true;
}

/** An empty answer (204): nothing over HTTP, `null` through the bridge's relay. */
export const noContent = z.union([z.undefined(), z.null()]).transform(() => undefined);

/** A file's bytes and their type, as the library reads a `bytes` answer. */
export interface BytesBody {
  media_type: string;
  bytes: Uint8Array;
}
export const bytesAnswer = z.custom<BytesBody>(
  (value) => typeof value === "object" && value !== null && (value as BytesBody).bytes instanceof Uint8Array,
);

/** A contract but for its method and path; the status is 200 and the route's own error codes none unless given. */
export type RouteSpec = Omit<RouteContract, "method" | "path" | "status" | "errors"> &
  Partial<Pick<RouteContract, "status" | "errors">>;

/** The contract `defineRoute` makes of a method, a path and a spec: the spec's literal types, the defaults filled. */
export type DefinedRoute<M extends HttpMethod, P extends string, S extends RouteSpec> = Omit<S, "status" | "errors"> & {
  method: M;
  path: P;
  status: S extends { status: infer N extends number } ? N : 200;
  errors: S extends { errors: infer E extends readonly HttpErrorCode[] } ? E : readonly [];
};

/** Declares a contract, `defineRoute("GET", "/health", () => ({answer, open: true}))`, as Fastify and fetch read a
 *  route: method, then path, then the rest. The literal types are kept, so `z.infer` of its parts types both sides.
 *
 *  The rest comes as a function, called once, on the first read of anything but the method and path: a route's
 *  schemas are built when it is first served or called, not when the library loads. The app's start evaluates every
 *  route module (the library's one `ServerApi` names them all) and would otherwise build a hundred routes' schemas
 *  before its first paint (docs/app.md "Start-up"). Built later, the contract is the same: the same schemas, the same
 *  fields, and `in`, `Object.keys` and spreading see exactly those. */
export function defineRoute<const M extends HttpMethod, const P extends string, const S extends RouteSpec>(
  method: M,
  path: P,
  spec: () => S,
): DefinedRoute<M, P, S>;
export function defineRoute(method: HttpMethod, path: string, spec: () => RouteSpec): RouteContract {
  const contract = onFirstUse((): RouteContract => {
    const rest = spec();
    return { method, path, ...rest, status: rest.status ?? 200, errors: rest.errors ?? [] };
  });
  // The proxy's own target stays empty: every question about the contract's fields is answered by the built one.
  return new Proxy({} as RouteContract, {
    get: (_target, key) => (key === "method" ? method : key === "path" ? path : Reflect.get(contract(), key)),
    has: (_target, key) => key in contract(),
    ownKeys: () => Reflect.ownKeys(contract()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(contract(), key),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}

type Schema<C, K extends string> = C extends { [P in K]: infer S extends z.ZodType } ? S : undefined;

/** What a caller gives a route: the path parameters, query and body, each typed by the contract's schemas. */
export type RouteInput<C extends RouteContract> = (Schema<C, "params"> extends z.ZodType
  ? { params: z.input<Schema<C, "params">> }
  : { params?: undefined }) &
  (Schema<C, "query"> extends z.ZodType ? { query?: z.input<Schema<C, "query">> } : { query?: undefined }) &
  (Schema<C, "body"> extends z.ZodType
    ? { body: z.input<Schema<C, "body">> }
    : C extends { rawBody: true }
      ? { body?: unknown }
      : { body?: undefined });

/** The success answer a route gives, as the library reads it. */
export type RouteAnswer<C extends RouteContract> = z.output<C["answer"]>;

/** The concrete path of a route: each `:name` replaced by its parameter, percent-encoded. */
export function routePath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`route ${path}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
