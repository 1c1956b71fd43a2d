// Every route under /sessions/{session_id} asks the chat guard before its handler runs (docs/people.md "Access"): the
// route's action is named here once, by the route it was routed to (never its path), so a new chat route is covered
// the day it is added (an unlisted route is "read" for GET and "manage" otherwise: only the owner, until listed).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ChatAction } from "../people/access.ts";
import type { ChatGuard } from "../people/chat-guard.ts";

const S = "/sessions/:session_id";

const ACTIONS: Readonly<Record<string, ChatAction>> = {
  [`GET ${S}`]: "read",
  [`DELETE ${S}`]: "manage",
  [`POST ${S}/fork`]: "copy",
  [`GET ${S}/messages`]: "read",
  [`POST ${S}/messages`]: "manage",
  [`PATCH ${S}/messages/:index`]: "manage",
  [`DELETE ${S}/messages`]: "manage",
  [`POST ${S}/send`]: "send",
  [`POST ${S}/regenerate`]: "send",
  [`POST ${S}/messages/:index/resend`]: "send",
  [`POST ${S}/messages/:index/version`]: "send",
  [`POST ${S}/requests/:request_id/cancel`]: "send",
  [`GET ${S}/export`]: "read",
  // A chat's share links are its owner's, listing them too (a link carries the chat to anyone).
  [`GET ${S}/share-links`]: "manage",
  [`GET ${S}/actions`]: "read",
  [`POST ${S}/actions/:name`]: "answer",
  [`GET ${S}/notifications`]: "read",
  [`POST ${S}/notifications`]: "answer",
  [`POST ${S}/notifications/resolve`]: "answer",
  [`POST ${S}/notifications/:notification_id/dismiss`]: "answer",
  [`POST ${S}/notifications/:notification_id/respond`]: "answer",
};

/** The attachments extension names its action in the path: storing is part of sending, deleting is the owner's. */
const EXTENSION_ACTIONS: Readonly<Record<string, ChatAction>> = {
  store_attachment: "send",
  download_attachment: "read",
  delete_attachment: "manage",
};

const FLAG_FIELDS = new Set(["pinned", "archived"]);

export function chatActionOf(request: FastifyRequest): ChatAction {
  const route = `${request.method} ${request.routeOptions.url}`;
  const listed = ACTIONS[route];
  if (listed !== undefined) return listed;
  if (route === `PATCH ${S}`) return patchAction(request.body);
  if (request.routeOptions.url?.startsWith(`${S}/extensions/`)) {
    const action = (request.params as { action?: string }).action ?? "";
    return EXTENSION_ACTIONS[action] ?? "manage";
  }
  return request.method === "GET" ? "read" : "manage";
}

/** Pinning or archiving alone is a person's own choice; any other change of the chat is its owner's. */
function patchAction(body: unknown): ChatAction {
  if (typeof body !== "object" || body === null) return "manage";
  const keys = Object.keys(body);
  return keys.length > 0 && keys.every((key) => FLAG_FIELDS.has(key)) ? "flag" : "manage";
}

export function installSessionAccess(app: FastifyInstance, guard: ChatGuard): void {
  app.addHook("preHandler", async (request) => {
    if (!request.routeOptions.url?.startsWith(`${S}`) || request.caller === undefined) return;
    const sessionId = (request.params as { session_id?: unknown }).session_id;
    if (typeof sessionId !== "string" || sessionId === "") return; // the route's own parsing answers 400
    guard.require(request.caller, sessionId, chatActionOf(request));
  });
}
