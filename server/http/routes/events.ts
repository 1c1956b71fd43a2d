// GET /events (docs/events.md "`GET /events` rules", "The log"): bootstrap, the session cursor default,
// compaction of the response window, paging, epoch checks and wait_ms long-polling.
import type { FastifyInstance, FastifyReply } from "fastify";
import { setMaxListeners } from "node:events";
import { z } from "zod";
import { formatEventId, parseEventId } from "../../../client/wire/index.ts";
import { deadlineAfter } from "../../clock.ts";
import type { ServerContext } from "../../context.ts";
import { compactEvents } from "../../events/compaction.ts";
import { CursorExpiredError, type ListQuery } from "../../events/event-store.ts";
import { authenticateRequest, callerOfRoute } from "../auth.ts";
import { unauthorized } from "../errors.ts";
import { parseInput } from "../validate.ts";

export const MAX_WAIT_MS = 30_000;
const DEFAULT_PAGE = 500;

const eventsQuerySchema = z
  .object({
    since_id: z
      .string()
      .refine((v) => parseEventId(v) !== undefined, "since_id must be a decimal event id of at most 20 digits")
      .optional(),
    session_id: z.string().min(1).optional(),
    request_id: z.string().min(1).optional(),
    epoch: z.string().min(1).optional(),
    limit: z.coerce.number().int().min(1).optional(),
    wait_ms: z.coerce.number().int().min(0).max(MAX_WAIT_MS).optional(),
  })
  .strict();

export function registerEventRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const maxPage = ctx.config.events.max_page_size;
  // Each pending long-poll listens for shutdown; their number is bounded by the connection cap, not by 10.
  setMaxListeners(0, ctx.shutdown);
  app.get("/events", async (request, reply) => {
    const query = parseInput(eventsQuerySchema, request.query, "query");
    if (query.epoch !== undefined && query.epoch !== ctx.events.epoch) {
      throw new CursorExpiredError(
        `epoch ${query.epoch} is not this store's (${ctx.events.epoch}): the store was reset; reload snapshots`,
      );
    }
    const base = { epoch: ctx.events.epoch };
    if (query.since_id === undefined && query.session_id === undefined && query.request_id === undefined) {
      const latest = formatEventId(ctx.events.latestId);
      return { events: [], latest_event_id: latest, next_since_id: latest, ...base };
    }
    // A deleted (or unknown) session has no events to read: 404, as its other routes answer; so has another person's.
    const caller = callerOfRoute(request);
    if (query.session_id !== undefined) {
      ctx.chatGuard.require(caller, query.session_id, "read");
      ctx.sessions.requireExists(query.session_id);
    }
    const sinceId = query.since_id !== undefined ? parseEventId(query.since_id)! : startOf(ctx, query.session_id);
    const list: ListQuery = {
      sinceId,
      sessionId: query.session_id,
      requestId: query.request_id,
      limit: Math.min(query.limit ?? DEFAULT_PAGE, maxPage),
      // Only what the caller's person may read, decided inside the query (docs/people.md "Events"). The admin token,
      // once the guard let it into one named chat (audited), reads that chat's events whoever owns it.
      personId: caller.kind === "admin" && query.session_id !== undefined ? undefined : caller.person_id,
    };
    const page = await readOrWait(ctx, list, query.wait_ms ?? 0, reply);
    // A device revoked while its long-poll waited must not be handed what committed after the revocation: the
    // token is checked again when the wait ends, as a new request would be (401).
    if (query.wait_ms !== undefined && query.wait_ms > 0 && !authenticateRequest(ctx.auth, request))
      throw unauthorized();
    return {
      events: compactEvents(page.events),
      next_since_id: formatEventId(page.lastId),
      has_more: page.hasMore,
      ...base,
    };
  });
}

/**
 * Where a poll without since_id starts. Rule 1: a session poll starts at the session's cursor, not at the start
 * of history; a cursor older than the retained log is refused exactly as the same since_id would be (410), since
 * events of the session after it may have been pruned. A request poll starts at the oldest retained event: the
 * caller named no cursor, so a pruned prefix is not a hole it could have expected to see.
 */
function startOf(ctx: ServerContext, sessionId: string | undefined): number {
  if (sessionId === undefined) return ctx.events.oldestValidCursor;
  const cursor = parseEventId(ctx.sessions.loadMessages(sessionId).cursor_event_id)!;
  if (cursor < ctx.events.oldestValidCursor) {
    throw new CursorExpiredError(
      `session ${sessionId}'s cursor ${formatEventId(cursor)} is older than the retained log (events up to ${formatEventId(ctx.events.oldestValidCursor)} were pruned); reload snapshots`,
    );
  }
  return cursor;
}

/** Reads a page; when it is empty and wait_ms allows, waits for commits until one matches or time is up. */
async function readOrWait(ctx: ServerContext, list: ListQuery, waitMs: number, reply: FastifyReply) {
  let page = ctx.events.list(list);
  if (page.events.length > 0 || waitMs === 0) return page;
  const abort = new AbortController();
  const onGone = () => abort.abort();
  reply.raw.once("close", onGone);
  ctx.shutdown.addEventListener("abort", onGone, { once: true });
  const filter = { sessionId: list.sessionId, requestId: list.requestId };
  const latest = () => ctx.events.latestId;
  // wait_ms runs on the injected clock; the commit wait itself keeps no timer (Infinity).
  const deadline = deadlineAfter(ctx.clock, waitMs, abort.signal);
  try {
    // Only commits that wrote an event this poll's filter matches wake it. Each read starts where the last
    // empty one ended (page.lastId is the newest id it covered), so a waiting poll never re-reads what did not match.
    let seen = Math.max(list.sinceId, ctx.events.latestId);
    while (page.events.length === 0 && !deadline.signal.aborted) {
      if (!(await ctx.events.commits.waitBeyond(seen, latest, Infinity, deadline.signal, filter))) break;
      seen = ctx.events.latestId;
      page = ctx.events.list({ ...list, sinceId: page.lastId });
    }
  } finally {
    deadline.dispose();
    reply.raw.off("close", onGone);
    ctx.shutdown.removeEventListener("abort", onGone);
  }
  return page;
}
