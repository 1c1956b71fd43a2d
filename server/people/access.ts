// Who may see and do what on a chat (docs/people.md "Access"): one pure function every route, the event filter and
// the notification fan-out ask, so no two places can disagree. A chat's audience is its owner and the people it is
// shared with; everyone else gets "none", and "none" is answered exactly as a chat that does not exist (404).

export type ShareAccess = "read" | "write";
/** What a person holds on a chat: the owner everything, a share `write` or `read`, anyone else nothing. */
export type ChatAccess = "owner" | ShareAccess | "none";

export interface ChatAudience {
  owner_id: string;
  shares: readonly { person_id: string; access: ShareAccess }[];
}

/** Everything a caller can do to a chat, named once (the routes map onto these in server/http/session-access.ts). */
export type ChatAction =
  | "read" // the chat, its messages, events, attachments, notifications, export
  | "copy" // fork it into one's own chats
  | "send" // send, regenerate, resend, switch versions, cancel one's own requests, upload attachments
  | "answer" // answer an approval, dismiss or run a session notification's action
  | "flag" // pin or archive it for oneself
  | "manage"; // rename, delete, edit or delete messages, change model or request options, share, make links

const ALLOWED: Record<ChatAccess, ReadonlySet<ChatAction>> = {
  owner: new Set(["read", "copy", "send", "answer", "flag", "manage"]),
  write: new Set(["read", "copy", "send", "answer", "flag"]),
  read: new Set(["read", "copy", "flag"]),
  none: new Set(),
};

export function accessOf(personId: string, chat: ChatAudience): ChatAccess {
  if (chat.owner_id === personId) return "owner";
  return chat.shares.find((share) => share.person_id === personId)?.access ?? "none";
}

export function mayDo(access: ChatAccess, action: ChatAction): boolean {
  return ALLOWED[access].has(action);
}

/** The people who may write the chat: whose devices are asked approvals and pushed its replies. */
export function writers(chat: ChatAudience): string[] {
  return [chat.owner_id, ...chat.shares.filter((share) => share.access === "write").map((share) => share.person_id)];
}

/** Whether a person with these allowed agents may use `agentId`. */
export function agentAllowed(agents: "*" | readonly string[], agentId: string): boolean {
  return agents === "*" || agents.includes(agentId);
}
