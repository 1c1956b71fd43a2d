// Serves a route from its contract in the wire (client/wire/routes/): the parameters, query and body are parsed with
// the contract's schemas (a failure is the one 400 invalid_input, server/http/validate.ts), the handler gets them
// typed, and an answer without its own status gets the contract's. The contract rides on the route's config, so the
// architecture tests can tell every registered route has one (docs/server.md "Route contracts").
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { RouteContract } from "../../client/wire/routes/route.ts";
import { requireAdmin } from "./auth.ts";
import { answerRecordConflict } from "./record-conflict.ts";
import { parseInput } from "./validate.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The wire contract a route was served from (serveRoute). */
    contract?: RouteContract;
  }
}

type Parsed<C, K extends string> = C extends { [P in K]: infer S extends z.ZodType } ? z.output<S> : undefined;

export interface RouteCall<C extends RouteContract> {
  params: Parsed<C, "params">;
  query: Parsed<C, "query">;
  body: Parsed<C, "body">;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** An answer schema's input without the index signature a loose object adds (`z.looseObject` keeps unknown keys), so
 *  the server's own record types (interfaces) can be returned as they are. */
type Known<T> = T extends readonly (infer E)[]
  ? Known<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
    : T;

/** What a handler returns: the answer's body (the contract's status is set), the reply it already sent, or nothing
 *  for an empty answer (204). */
export type RouteResult<C extends RouteContract> =
  Known<z.input<C["answer"]>> | FastifyReply | (C["status"] extends 204 ? void : never);

export interface ServeOptions {
  /**
   * Checks made before the input is read (who may call, whether the feature is on), so their refusal comes first
   * whatever the input. `admin` contracts need none: serveRoute refuses other callers itself.
   */
  before?: (request: FastifyRequest) => void;
  /** The route's own body limit, when it takes more (or less) than the server's default. */
  bodyLimit?: number;
  /**
   * The route streams its body to disk rather than holding it (POST /import): it takes nothing from the budget of
   * bodies held in memory (body-budget.ts), which would else hold a person's whole share for an import's length.
   */
  bodyOnDisk?: true;
}

export function serveRoute<C extends RouteContract>(
  app: FastifyInstance,
  contract: C,
  handler: (call: RouteCall<C>) => RouteResult<C> | Promise<RouteResult<C>>,
  options: ServeOptions = {},
): void {
  app.route({
    method: contract.method,
    url: contract.path,
    config: { contract, ...(options.bodyOnDisk ? { bodyOnDisk: true } : {}) },
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    handler: async (request, reply) => {
      if (contract.admin) requireAdmin(request);
      options.before?.(request);
      const call = {
        params: contract.params ? parseInput(contract.params, request.params, "params") : undefined,
        query: contract.query ? parseInput(contract.query, request.query, "query") : undefined,
        body: contract.body ? parseInput(contract.body, request.body, "body") : undefined,
        request,
        reply,
      } as RouteCall<C>;
      const result = await answerRecordConflict(contract, reply, () => handler(call));
      if (result === reply || reply.sent) return reply;
      if (reply.statusCode === 200) reply.status(contract.status);
      return contract.status === 204 ? reply.send() : result;
    },
  });
}
