// People routes (docs/people.md "Routes"): the admin role lists, adds, changes and removes people and reads the audit
// log; any device reads the directory (live people's names) and its own person.
import type { FastifyInstance } from "fastify";
import {
  auditRoute,
  createPersonRoute,
  listPeopleRoute,
  myPersonRoute,
  peopleDirectoryRoute,
  removePersonRoute,
  updatePersonRoute,
} from "../../../client/wire/routes/people.ts";
import type { ServerContext } from "../../context.ts";
import { callerOfRoute, requireAdminRole } from "../auth.ts";
import { serveRoute } from "../serve-route.ts";

export function registerPeopleRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { people, personStore } = ctx;

  serveRoute(app, listPeopleRoute, ({ request }) => {
    requireAdminRole(request);
    return { people: personStore.list() };
  });

  serveRoute(app, peopleDirectoryRoute, () => ({ people: personStore.directory() }));

  serveRoute(app, myPersonRoute, ({ request }) => ({ person: people.require(callerOfRoute(request).person_id) }));

  serveRoute(app, createPersonRoute, ({ request, body }) => {
    requireAdminRole(request);
    const person = people.create(body);
    request.log.info({ person_id: person.id, role: person.role }, "person added");
    return { person };
  });

  serveRoute(app, updatePersonRoute, ({ request, params, body }) => {
    requireAdminRole(request);
    return { person: people.update(params.person_id, body) };
  });

  serveRoute(app, removePersonRoute, async ({ request, params, query }) => {
    const caller = requireAdminRole(request);
    const choice =
      query.chats === "transfer" ? { chats: "transfer" as const, to: query.to! } : { chats: "delete" as const };
    await people.remove(caller, params.person_id, choice);
    request.log.info({ person_id: params.person_id, chats: query.chats }, "person removed");
  });

  serveRoute(app, auditRoute, ({ request }) => {
    requireAdminRole(request);
    return { entries: ctx.audit.list() };
  });
}
