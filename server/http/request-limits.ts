// A person's limits on the routes that start a model request (docs/people.md "Limits"): the chat's agent must be one
// the sender's person may use (403 agent_not_allowed), and each request counts against the person's daily limit (429
// daily_limit_reached with Retry-After). Checked after the chat guard, before the route runs, in this one place.
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/database.ts";
import type { PeopleService } from "../people/people-service.ts";

const S = "/sessions/:session_id";
const REQUEST_ROUTES: ReadonlySet<string> = new Set([
  `POST ${S}/send`,
  `POST ${S}/regenerate`,
  `POST ${S}/messages/:index/resend`,
]);

export function installRequestLimits(app: FastifyInstance, db: Db, people: PeopleService): void {
  const agentOf = db.prepare<[string], { agent_id: string }>("SELECT agent_id FROM sessions WHERE id = ?");
  app.addHook("preHandler", async (request) => {
    if (!REQUEST_ROUTES.has(`${request.method} ${request.routeOptions.url}`) || request.caller === undefined) return;
    const sessionId = (request.params as { session_id?: unknown }).session_id;
    const agent = typeof sessionId === "string" ? agentOf.get(sessionId) : undefined;
    if (agent === undefined) return; // the route answers 404
    people.requireAgent(request.caller.person_id, agent.agent_id);
    people.countRequest(request.caller.person_id);
  });
}
