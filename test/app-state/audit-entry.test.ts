// The audit log's entries and notices in plain words, without a page (docs/app.md "Audit log", AL3-AL4): who (the
// admin token or a person by name, a removed one said so), what, whose, and which chat: its title only when the
// reader may see the chat, else "a chat"; an action this app does not know yet is still readable. An audit notice on
// the affected person's device names the chat by title, never by id.
import { describe, expect, it } from "vitest";
import { describeAuditEntry, type AuditNames } from "../../app/src/people/audit-entry.ts";
import { noticeBody } from "../../app/src/people/audit-notice.ts";

const NOW = Date.parse("2026-11-28T12:00:00Z");
const names: AuditNames = {
  personName: (id) => ({ p_owner: "Owner", p_ana: "Ana" })[id],
  chatTitle: (id) => (id === "s_mine" ? "Trip plan" : undefined),
};

describe("audit entries in words (AL3)", () => {
  it("names the admin token, the person concerned and a chat the reader may see by its title", () => {
    const line = describeAuditEntry(
      {
        at: "2026-11-28T11:55:00Z",
        actor: "admin_token",
        action: "admin_token_read",
        person_id: "p_ana",
        session_id: "s_mine",
      },
      names,
      NOW,
    );
    expect(line).toMatchObject({ actor: "The admin token", what: "opened a chat of", whose: "Ana" });
    expect(line.chat).toEqual({ title: "Trip plan" });
    expect(line.when).toBe("5 minutes ago");
    expect(line.exact).not.toBe(line.when);
    expect(line.at).toBe("2026-11-28T11:55:00Z");
  });

  it("hides the title of a chat the reader may not see, and says removed people and unknown actions plainly", () => {
    const line = describeAuditEntry(
      {
        at: "2026-11-28T11:00:00Z",
        actor: "p_gone",
        action: "chats_transferred",
        person_id: "p_gone2",
        session_id: "s_theirs",
      },
      names,
      NOW,
    );
    expect(line).toMatchObject({ actor: "A removed person", whose: "a removed person", chat: { title: undefined } });
    const unknown = describeAuditEntry(
      { at: "2026-11-28T11:59:50Z", actor: "p_owner", action: "keys_rotated_for", person_id: null },
      names,
      NOW,
    );
    expect(unknown).toMatchObject({ actor: "Owner", what: "keys rotated for", whose: undefined, chat: undefined });
    expect(unknown.when).toBe("just now");
  });

  it("says an export of everything concerns no one person and no chat", () => {
    const line = describeAuditEntry(
      { at: "2026-11-28T11:00:00Z", actor: "admin_token", action: "export_everything", person_id: null },
      names,
      NOW,
    );
    expect(line).toMatchObject({ what: "exported every chat on the server", whose: undefined, chat: undefined });
  });
});

describe("audit notices on the affected person's devices (AL4)", () => {
  it("replaces the chat id of the body by the chat's title, or leaves it out", () => {
    const read = { key: "audit:admin_token_read:s_mine", body: "Chat s_mine" };
    expect(noticeBody(read, names.chatTitle)).toBe("Chat: “Trip plan”");
    expect(noticeBody({ key: "audit:admin_token_read:s_x", body: "Chat s_x" }, names.chatTitle)).toBeUndefined();
  });

  it("tells what to do after a pairing code made for them, and leaves other notifications alone", () => {
    expect(noticeBody({ key: "audit:pairing_for_person:p_ana" }, names.chatTitle)).toMatch(/check Devices/);
    expect(noticeBody({ key: "disk:full", body: "Chat s_mine" }, names.chatTitle)).toBe("Chat s_mine");
  });
});
