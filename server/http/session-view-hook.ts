// Every session an HTTP answer carries is shown as the caller's person sees it (server/people/session-views.ts):
// `{session}` and `{sessions: [...]}` answers of any route get owner, owner_name, shares and the caller's own flags,
// in this one place rather than in each route.
import type { FastifyInstance } from "fastify";
import type { SessionViews } from "../people/session-views.ts";

type Payload = { session?: unknown; sessions?: unknown };

const isSession = (value: unknown): value is { id: string } =>
  typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";

export function installSessionViews(app: FastifyInstance, views: SessionViews): void {
  app.addHook("preSerialization", async (request, _reply, payload: unknown) => {
    const viewer = request.caller?.person_id;
    if (viewer === undefined || typeof payload !== "object" || payload === null) return payload;
    const { session, sessions } = payload as Payload;
    if (isSession(session)) return { ...payload, session: views.view(session, viewer) };
    if (Array.isArray(sessions) && sessions.every(isSession))
      return { ...payload, sessions: views.viewAll(sessions, viewer) };
    return payload;
  });
}
