// The request-body bytes the server holds at once (docs/events.md "HTTP errors and limits", H-invariants there): each
// route bounds its own body and server-options.ts bounds the connections, but without this a member sending a hundred
// 25 MiB recordings at once would make the server hold gigabytes. A request takes its declared bytes before its body
// is read and gives them back once, however its exchange ends; one that does not fit is refused at once, unread.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { unavailable } from "../errors.ts";

export interface BodyBudgetLimits {
  /** Body bytes held across all requests. */
  totalBytes: number;
  /** Body bytes one person (or, on the open routes, one address) may hold while others wait their turn. */
  perCallerBytes: number;
}

const MiB = 1024 * 1024;

/**
 * 256 MiB: about 18 of the largest sends (an inline image, ~13.6 MB) or 10 recordings (speech.max_bytes, 25 MiB) at
 * once, far above one household's use, while the server's RSS stays a few hundred MiB under a flood. One person holds
 * at most a quarter of it (64 MiB: four image sends or two recordings at once), so one flooding member leaves the rest
 * for the others.
 */
export const DEFAULT_BODY_BUDGET: BodyBudgetLimits = { totalBytes: 256 * MiB, perCallerBytes: 64 * MiB };

/** Seconds a refused request is told to wait (Retry-After and details.retry_after): bodies in flight end quickly. */
export const BUSY_RETRY_AFTER_S = 1;

/** The bytes in flight, all and by caller. Taking is refused when it would pass a bound, unless nothing is held (by
 *  anyone, or by this caller): a body larger than a bound alone must still pass, or it could never be sent. */
export class BodyBudget {
  private held = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(readonly limits: BodyBudgetLimits = DEFAULT_BODY_BUDGET) {}

  /** Body bytes held now (tests read it to see every exchange gave its bytes back). */
  get inFlight(): number {
    return this.held;
  }

  /** Takes `bytes` for `caller`; the function gives them back (once, however often it is called), or undefined when
   *  they do not fit. */
  take(caller: string, bytes: number): (() => void) | undefined {
    const mine = this.byCaller.get(caller) ?? 0;
    if (this.held > 0 && this.held + bytes > this.limits.totalBytes) return undefined;
    if (mine > 0 && mine + bytes > this.limits.perCallerBytes) return undefined;
    this.held += bytes;
    this.byCaller.set(caller, mine + bytes);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= bytes;
      const left = (this.byCaller.get(caller) ?? bytes) - bytes;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    };
  }
}

/**
 * Applies `budget` to every route. The hook runs right after auth's, which is the first to know the caller: the share
 * is a person's, so every device of one member (and every relayed call, whose bridge address they all share) counts
 * together. Requests refused before it (401, a producer's 403) are answered before their body is parsed (Node reads and
 * drops the rest), so they hold nothing.
 */
export function installBodyBudget(app: FastifyInstance, budget: BodyBudget): void {
  app.addHook("onRequest", async (request, reply) => {
    // A body streamed to disk as it comes (an import) is bounded by its route on disk, not held here.
    if ((request.routeOptions.config as { bodyOnDisk?: boolean } | undefined)?.bodyOnDisk) return;
    const bytes = declaredBodyBytes(request, app.initialConfig.bodyLimit ?? 0, budget.limits.perCallerBytes);
    if (bytes === 0) return;
    const release = budget.take(callerKey(request), bytes);
    if (release === undefined) {
      // The body is never read: the connection closes after the answer, so Node does not read the rest either.
      reply.header("connection", "close");
      throw unavailable(
        "server_busy",
        "the server is receiving too many request bodies at once; send again in a moment",
        { retry_after: BUSY_RETRY_AFTER_S },
      );
    }
    // The response's 'close' ends every exchange: answered, failed, refused by a later hook, cut mid-body by the
    // client or mid-stream; inject's response and the relay's in-process one emit it after 'finish' too. 'finish'
    // gives the bytes back as soon as the answer is written, should a response be slow to close.
    reply.raw.once("finish", release).once("close", release);
  });
}

/**
 * The bytes a request's body will hold: its content-length, or for a chunked body (no length said) a whole person's
 * share, or its route's limit if larger. Not the route's limit alone: the routes that read their own bodies (a
 * recording up to speech.max_bytes, a document, an upload part) keep the server's 1 MiB there, so chunked recordings
 * counted so would pass the budget 25 times over. Apps send a length; a chunked body waits its turn alone.
 */
function declaredBodyBytes(request: FastifyRequest, serverBodyLimit: number, share: number): number {
  const length = request.headers["content-length"];
  if (length !== undefined) return Number(length) > 0 ? Number(length) : 0;
  if (request.headers["transfer-encoding"] === undefined) return 0;
  return Math.max(request.routeOptions.bodyLimit ?? serverBodyLimit, share);
}

function callerKey(request: FastifyRequest): string {
  return request.caller ? `person:${request.caller.person_id}` : `address:${request.ip}`;
}
