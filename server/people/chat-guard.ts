// The one check every chat route makes (docs/people.md "Access"): what the caller's person holds on the chat, and
// whether that allows the action. A chat the person may not see is 404 session_not_found, exactly as an unknown one;
// a chat they see but may not do this to is 403 share_access_denied. The admin token may reach any chat (it is the
// machine operator's), and each such use of another person's chat is written to the audit log.
import type { Caller } from "../auth/caller.ts";
import { forbidden, notFound } from "../errors.ts";
import { accessOf, mayDo, type ChatAccess, type ChatAction } from "./access.ts";
import type { AuditLog } from "./audit-log.ts";
import type { ChatAudiences } from "./chat-audiences.ts";

export class ChatGuard {
  constructor(
    private readonly audiences: ChatAudiences,
    private readonly audit: AuditLog,
  ) {}

  /** What the caller holds on the chat; throws as the chat routes answer when it may not do `action`. */
  require(caller: Caller, sessionId: string, action: ChatAction): ChatAccess {
    const audience = this.audiences.of(sessionId);
    if (audience === undefined) throw notFound("session_not_found", `no session "${sessionId}"`);
    const access = accessOf(caller.person_id, audience);
    if (access === "none" && caller.kind === "admin") {
      this.audit.record({
        actor: "admin_token",
        action: "admin_token_read",
        person_id: audience.owner_id,
        session_id: sessionId,
      });
      return "owner";
    }
    if (access === "none") throw notFound("session_not_found", `no session "${sessionId}"`);
    if (!mayDo(access, action))
      throw forbidden("share_access_denied", `this chat is shared with you for ${access}; only its owner may do this`);
    return access;
  }
}
