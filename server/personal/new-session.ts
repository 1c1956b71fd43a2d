// A new chat starts with its person's default agent and model (docs/settings.md "Personal") unless the call names
// an agent. A default agent that was removed from the settings since is passed over: the server's default is used.
import type { Session } from "../../client/wire/messages.ts";
import type { ServerContext } from "../context.ts";

export function startSession(
  ctx: Pick<ServerContext, "personal" | "agents" | "sessions">,
  personId: string,
  agentId: string | undefined,
): Session {
  if (agentId !== undefined) return ctx.sessions.create(agentId);
  const own = ctx.personal.settings(personId);
  const agent = own.default_agent !== null && ctx.agents.has(own.default_agent) ? own.default_agent : undefined;
  const session = ctx.sessions.create(agent);
  return own.default_model === null ? session : ctx.sessions.update(session.id, { model: own.default_model });
}
