// The chat access rules as a pure module (server/people/access.ts, docs/people.md "Access"): what each person holds on
// a chat, what each holding allows, whose devices are asked approvals and pushed replies (the writers), and which agents
// a person may use. The routes ask these through the chat guard; here each rule is pinned on its own.
import { describe, expect, it } from "vitest";
import { accessOf, agentAllowed, mayDo, writers, type ChatAction } from "../../server/people/access.ts";

const chat = {
  owner_id: "per_owner",
  shares: [
    { person_id: "per_reader", access: "read" },
    { person_id: "per_writer", access: "write" },
    { person_id: "per_second_writer", access: "write" },
  ],
} as const;
const ACTIONS: ChatAction[] = ["read", "copy", "send", "answer", "flag", "manage"];

describe("chat access", () => {
  it("is the owner's, a share's access, or none", () => {
    expect(accessOf("per_owner", chat)).toBe("owner");
    expect(accessOf("per_reader", chat)).toBe("read");
    expect(accessOf("per_writer", chat)).toBe("write");
    expect(accessOf("per_stranger", chat)).toBe("none");
  });

  it("allows the owner everything, a writer all but managing, a reader reading, copying and flagging, no one else anything", () => {
    const allowed = (access: Parameters<typeof mayDo>[0]) => ACTIONS.filter((action) => mayDo(access, action));
    expect(allowed("owner")).toEqual(ACTIONS);
    expect(allowed("write")).toEqual(["read", "copy", "send", "answer", "flag"]);
    expect(allowed("read")).toEqual(["read", "copy", "flag"]);
    expect(allowed("none")).toEqual([]);
  });

  it("names the owner and the write shares as the chat's writers, never a reader", () => {
    expect(writers(chat)).toEqual(["per_owner", "per_writer", "per_second_writer"]);
    expect(writers({ owner_id: "per_alone", shares: [] })).toEqual(["per_alone"]);
  });

  it("lets a person use every agent with '*', else only the agents listed", () => {
    expect(agentAllowed("*", "default")).toBe(true);
    expect(agentAllowed(["kids"], "kids")).toBe(true);
    expect(agentAllowed(["kids"], "default")).toBe(false);
    expect(agentAllowed([], "kids")).toBe(false);
  });
});
