// Titles written by the model (docs/sessions.md "Titles"), as Open WebUI and LibreChat do: after a session's first
// reply, one short non-streamed completion asks for a title, which is saved with `session_updated` so every device
// shows it without a reload. It starts only after the user's request has ended (request_completed is published and
// the session is free), holds no run slot, publishes no request events, and a failure is only logged: the derived
// title (the first user message) stays. A title the user gave, before or while it is written, is never replaced.
import type { FastifyBaseLogger } from "fastify";
import { clipTitle, headOf, type Message, type Session } from "../../client/wire/index.ts";
import type { ResolvedAgent } from "../config/agents.ts";
import type { Provider } from "../provider/index.ts";
import type { SessionService } from "../sessions/session-service.ts";

export interface TitleSettings {
  /** config titles.enabled (default true); off: sessions keep the title derived from their first message. */
  enabled: boolean;
  /** config titles.title_model: the model asked (default: the session's model, else its agent's). */
  model?: string | undefined;
}

/** Characters of each message the title request quotes: enough to name a topic, cheap on any backend. */
const QUOTED_CHARS = 1500;
/** Longest title kept (the length of a derived title). */
const MAX_TITLE_CHARS = 80;

const INSTRUCTION =
  "You name chat conversations. Reply with a title for the conversation below and nothing else: at most six words, " +
  "in the conversation's language, no quotes, no emoji, no final punctuation.";

interface Pending {
  controller: AbortController;
  done: Promise<void>;
}

export class TitleWriter {
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(
    private readonly settings: TitleSettings,
    private readonly sessions: SessionService,
    private readonly providerOf: (agent: ResolvedAgent) => Provider,
    private readonly log: Pick<FastifyBaseLogger, "debug" | "warn">,
  ) {}

  /** Called when a request of the session has ended: writes a title when this was the untitled session's first reply. */
  afterRequest(agent: ResolvedAgent, sessionId: string): void {
    if (!this.settings.enabled || this.closed || this.pending.has(sessionId)) return;
    const session = this.current(sessionId);
    const exchange = session && session.title === undefined ? firstExchange(session.messages) : undefined;
    if (!session || !exchange) return;
    const controller = new AbortController();
    const done = this.write(agent, session, exchange, controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted)
          this.log.warn(
            { err: error, session_id: sessionId },
            "the model could not write a title; the first message names the session",
          );
      })
      .finally(() => this.pending.delete(sessionId));
    this.pending.set(sessionId, { controller, done });
  }

  /** Stops the title being written for a session (it is being deleted). */
  cancel(sessionId: string): void {
    this.pending.get(sessionId)?.controller.abort(new Error("the session is being deleted"));
  }

  /** Stops every title being written and waits until none touches the database any more. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pending.values()];
    for (const pending of all) pending.controller.abort(new Error("the server is shutting down"));
    await Promise.all(all.map((pending) => pending.done));
  }

  private current(sessionId: string): Session | undefined {
    try {
      return this.sessions.get(sessionId);
    } catch {
      return undefined; // deleted meanwhile
    }
  }

  private async write(
    agent: ResolvedAgent,
    session: Session,
    exchange: [Message, Message],
    signal: AbortSignal,
  ): Promise<void> {
    const model = this.settings.model ?? session.model;
    const request = { messages: titlePrompt(exchange), stream: false, signal, ...(model ? { model } : {}) };
    let reply = "";
    for await (const delta of this.providerOf(agent).complete(request))
      if (delta.type === "done") reply = delta.message.content;
    const title = cleanTitle(reply);
    if (title === undefined || signal.aborted) return;
    const saved = this.current(session.id) && this.sessions.titleIfUntitled(session.id, title);
    this.log.debug({ session_id: session.id, written: saved !== undefined }, "title written by the model");
  }
}

/** The first user message and its reply, when the session has exactly one user message and a finished reply. */
function firstExchange(messages: readonly Message[]): [Message, Message] | undefined {
  const users = messages.filter((message) => message.role === "user");
  const reply = messages.findLast((message) => message.role === "assistant" && message.content.trim() !== "");
  if (users.length !== 1 || !reply || reply.metadata?.interrupted !== undefined) return undefined;
  if (messages[messages.length - 1] !== reply) return undefined;
  return [users[0]!, reply];
}

function titlePrompt([user, reply]: [Message, Message]): Message[] {
  const quote = (text: string) => (text.length > QUOTED_CHARS ? `${headOf(text, QUOTED_CHARS)}…` : text);
  return [
    { role: "system", content: INSTRUCTION },
    { role: "user", content: `User: ${quote(user.content)}\n\nAssistant: ${quote(reply.content)}` },
  ];
}

/** The model's answer as a title: its first line, without thinking, a "Title:" label, quotes or markdown marks. */
export function cleanTitle(answer: string): string | undefined {
  const visible = answer.replace(/<think>[\s\S]*?(<\/think>|$)/gi, "");
  const line =
    visible
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? "";
  const text = line
    .replace(/^title\s*:\s*/i, "")
    .replace(/^[#*_`"'“”‘’«»\s]+|[*_`"'“”‘’«»\s]+$/g, "")
    .replace(/[.。!！]+$/u, "")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return undefined;
  return clipTitle(text, MAX_TITLE_CHARS);
}
