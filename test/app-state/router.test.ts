// Hash routes (app/src/state/router.ts): a new chat started offline keeps its client_session_id in the address
// (#/new/<id>, docs/app.md "Outbox" OB10), and every route reads back as itself.
import { describe, expect, it } from "vitest";
import { hrefOf, parseRoute, type Route } from "../../app/src/state/router.ts";

describe("router", () => {
  it("reads a new chat's address with and without its client_session_id", () => {
    expect(parseRoute("#/new")).toEqual({ name: "new_chat" });
    expect(parseRoute("#/new/cs_abc")).toEqual({ name: "new_chat", client_session_id: "cs_abc" });
    expect(hrefOf({ name: "new_chat" })).toBe("#/new");
    expect(hrefOf({ name: "new_chat", client_session_id: "cs a/b" })).toBe("#/new/cs%20a%2Fb");
  });

  it("reads every address it writes back as the same route", () => {
    const routes: Route[] = [
      { name: "sessions" },
      { name: "chat", session_id: "s 1/2" },
      { name: "new_chat" },
      { name: "new_chat", client_session_id: "cs 1/2" },
      { name: "settings", section: "data" },
      { name: "audit" },
    ];
    for (const route of routes) expect(parseRoute(hrefOf(route))).toEqual(route);
  });
});
