// Serves a route from its contract in the wire (client/wire/routes/): the parameters, query and body are parsed with
// the contract's schemas (a failure is the one 400 invalid_input, server/http/validate.ts), the handler gets them
// typed, and an answer without its own status gets the contract's. The contract rides on the route's config, so the
// architecture tests can tell every registered route has one (docs/server.md "Route contracts").
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { RouteContract } from "../../client/wire/routes/route.ts";
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

/** What a handler returns: the answer's body (the contract's status is set), or the reply it already sent. */
export type RouteResult<C extends RouteContract> = z.input<C["answer"]> | FastifyReply;

export function serveRoute<C extends RouteContract>(
  app: FastifyInstance,
  contract: C,
  handler: (call: RouteCall<C>) => RouteResult<C> | Promise<RouteResult<C>>,
): void {
  app.route({
    method: contract.method,
    url: contract.path,
    config: { contract },
    handler: async (request, reply) => {
      const call = {
        params: contract.params ? parseInput(contract.params, request.params, "params") : undefined,
        query: contract.query ? parseInput(contract.query, request.query, "query") : undefined,
        body: contract.body ? parseInput(contract.body, request.body, "body") : undefined,
        request,
        reply,
      } as RouteCall<C>;
      const result = await handler(call);
      if (result === reply || reply.sent) return reply;
      if (reply.statusCode === 200) reply.status(contract.status);
      return contract.status === 204 ? reply.send() : result;
    },
  });
}
