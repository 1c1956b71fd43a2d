// A new chat starts with its person's default agent and model (docs/settings.md "Personal") unless the call names
// an agent. A default agent removed from the settings since, or one the person may no longer use, is passed over:
// the server's default is used (and checked like a named one).
import type { Session } from "../../client/wire/messages.ts";
import type { ServerContext } from "../context.ts";
import { DomainError } from "../errors.ts";

const SERVER_DEFAULT_AGENT = "default";

export function startSession(
  ctx: Pick<ServerContext, "personal" | "agents" | "sessions" | "people">,
  personId: string,
  agentId: string | undefined,
): Session {
  const own = agentId === undefined ? ctx.personal.settings(personId) : undefined;
  const agent = agentId ?? preferredAgent(ctx, personId, own?.default_agent ?? null);
  ctx.people.requireAgent(personId, agent);
  const session = ctx.sessions.create(agent, undefined, personId);
  return own?.default_model ? ctx.sessions.update(session.id, { model: own.default_model }) : session;
}

function preferredAgent(
  ctx: Pick<ServerContext, "agents" | "people">,
  personId: string,
  preferred: string | null,
): string {
  if (preferred === null || !ctx.agents.has(preferred)) return SERVER_DEFAULT_AGENT;
  try {
    ctx.people.requireAgent(personId, preferred);
    return preferred;
  } catch (error) {
    if (error instanceof DomainError && error.code === "agent_not_allowed") return SERVER_DEFAULT_AGENT;
    throw error;
  }
}
