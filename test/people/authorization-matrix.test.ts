// The authorization matrix (docs/people.md invariants N10-N14): an admin, an adult and a child member, two devices each
// (one end to end, one plain), against every chat route and every list that could carry a chat: no route gives a
// person another person's chat, its title, its messages, its search hits, its events or its count; the admin token
// reaches a chat by id only, audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatOf, startHousehold, type Household, type TestPerson } from "./support.ts";

let h: Household;
const chats = new Map<string, string>();
const MARK = (name: string) => `SECRET-${name.toUpperCase()}-MARKER`;

beforeAll(async () => {
  h = await startHousehold();
  for (const person of [h.admin, h.adult, h.child])
    chats.set(
      person.id,
      await chatOf(h.server, person.plain.token, MARK(person.name), person === h.child ? "kids" : undefined),
    );
});
afterAll(async () => {
  await h.server.close();
});

/** Every route that names a chat, with a body it would accept from its owner. */
const CHAT_ROUTES: [method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown][] = [
  ["GET", ""],
  ["PATCH", "", { title: "mine now" }],
  ["PATCH", "", { pinned: true }],
  ["DELETE", ""],
  ["POST", "/fork", {}],
  ["GET", "/messages"],
  ["POST", "/messages", { role: "user", content: "x" }],
  ["PATCH", "/messages/0", { content: "x" }],
  ["DELETE", "/messages", { indices: [0] }],
  ["POST", "/send", { content: "x" }],
  ["POST", "/regenerate", {}],
  ["POST", "/messages/0/resend", { content: "x" }],
  ["POST", "/messages/0/version", { version: 1 }],
  ["POST", "/requests/req_x/cancel", {}],
  ["GET", "/export?format=json"],
  ["GET", "/export?format=markdown"],
  ["GET", "/actions"],
  ["POST", "/actions/anything", {}],
  ["GET", "/notifications"],
  ["POST", "/notifications/n_x/dismiss", {}],
  ["POST", "/notifications/n_x/respond", { response: "approve" }],
  ["POST", "/extensions/reference_compatible_attachments/download_attachment", { asset_id: "ast_x" }],
  ["POST", "/extensions/reference_compatible_attachments/store_attachment", { data_base64: "AAAA" }],
];

function devicesOf(person: TestPerson) {
  return [
    { label: `${person.name} e2e`, token: person.e2e.token },
    { label: `${person.name} plain`, token: person.plain.token },
  ];
}

describe("the authorization matrix", () => {
  it("N10: every chat route answers another person's chat exactly as an unknown one (404 session_not_found), leaking nothing", async () => {
    const people = [h.admin, h.adult, h.child];
    for (const caller of people) {
      for (const owner of people.filter((p) => p !== caller)) {
        const chat = chats.get(owner.id)!;
        for (const device of devicesOf(caller)) {
          for (const [method, path, body] of CHAT_ROUTES) {
            const answer = await h.server.request({
              method,
              url: `/sessions/${chat}${path}`,
              token: device.token,
              ...(body === undefined ? {} : { payload: body as object }),
            });
            const where = `${device.label} ${method} ${path || "/"} on ${owner.name}'s chat`;
            expect([answer.status, answer.json?.error?.code], where).toEqual([404, "session_not_found"]);
            expect(answer.text, where).not.toContain(MARK(owner.name));
          }
          const events = await h.server.request({
            method: "GET",
            url: `/events?session_id=${chat}`,
            token: device.token,
          });
          expect([events.status, events.json.error.code]).toEqual([404, "session_not_found"]);
        }
      }
    }
    // Nothing was changed by any of those calls.
    for (const owner of people) {
      const read = await h.server.request({
        method: "GET",
        url: `/sessions/${chats.get(owner.id)}`,
        token: owner.e2e.token,
      });
      expect(read.status).toBe(200);
      expect(read.json.session.messages).toHaveLength(1);
      expect(read.json.session.title ?? "").not.toBe("mine now");
    }
  });

  it("N11: lists, search, export and the event feed carry a person's own chats and nobody else's", async () => {
    const people = [h.admin, h.adult, h.child];
    for (const caller of people) {
      const others = people.filter((p) => p !== caller).map((p) => MARK(p.name));
      for (const device of devicesOf(caller)) {
        const list = await h.server.request({ method: "GET", url: "/sessions?archived=include", token: device.token });
        expect(list.json.sessions.map((s: { id: string }) => s.id)).toEqual([chats.get(caller.id)]);
        expect(list.json.sessions[0]).toMatchObject({ owner: caller.id, owner_name: caller.name, shares: [] });
        for (const q of ["SECRET", "MARKER", ...others]) {
          const search = await h.server.request({ method: "GET", url: `/search?q=${q}`, token: device.token });
          expect(search.status).toBe(200);
          for (const hit of search.json.results) expect(hit.session_id).toBe(chats.get(caller.id));
        }
        const exported = await h.server.request({ method: "GET", url: "/export", token: device.token });
        expect(exported.status).toBe(200);
        expect(exported.text).toContain(MARK(caller.name));
        const events = await h.server.request({ method: "GET", url: "/events?since_id=0", token: device.token });
        expect(events.status).toBe(200);
        expect(events.text).toContain(MARK(caller.name));
        expect(events.json.next_since_id).toBe(h.server.runtime.ctx.events.latestId.toString().padStart(20, "0"));
        for (const text of [list.text, exported.text, events.text])
          for (const marker of others) expect(text).not.toContain(marker);
      }
    }
  });

  it("N12: the admin token reaches any chat by id, and each read of another person's chat is in the audit log", async () => {
    const chat = chats.get(h.child.id)!;
    const read = await h.server.request({ method: "GET", url: `/sessions/${chat}` });
    expect(read.status).toBe(200);
    const audit = await h.server.request({ method: "GET", url: "/audit", token: h.admin.plain.token });
    expect(audit.json.entries[0]).toMatchObject({
      actor: "admin_token",
      action: "admin_token_read",
      person_id: h.child.id,
      session_id: chat,
    });
    // The child's devices are told.
    const told = await h.server.request({
      method: "GET",
      url: "/application/notifications",
      token: h.child.plain.token,
    });
    expect(told.text).toContain("admin token opened one of your chats");
    const others = await h.server.request({
      method: "GET",
      url: "/application/notifications",
      token: h.adult.plain.token,
    });
    expect(others.text).not.toContain("admin token opened");
    // An admin person's device has no such reach.
    expect((await h.server.request({ method: "GET", url: `/sessions/${chat}`, token: h.admin.e2e.token })).status).toBe(
      404,
    );
  });

  it("N13: the people, device and audit routes refuse members (403 admin_required) and show a member only their own devices", async () => {
    for (const person of [h.adult, h.child]) {
      for (const device of devicesOf(person)) {
        for (const [method, url, payload] of [
          ["GET", "/people", undefined],
          ["POST", "/people", { name: "Mallory" }],
          ["PATCH", `/people/${h.admin.id}`, { name: "x" }],
          ["DELETE", `/people/${h.admin.id}?chats=delete`, undefined],
          ["GET", "/audit", undefined],
          ["POST", "/pairing", { person_id: h.admin.id }],
        ] as const) {
          const answer = await h.server.request({
            method,
            url,
            token: device.token,
            ...(payload ? { payload } : {}),
          });
          expect([answer.status, answer.json.error.code], `${device.label} ${method} ${url}`).toEqual([
            403,
            "admin_required",
          ]);
        }
        const devices = await h.server.request({ method: "GET", url: "/devices", token: device.token });
        expect(devices.json.devices.every((d: { person_id: string }) => d.person_id === person.id)).toBe(true);
        expect(devices.json.devices).toHaveLength(2);
      }
    }
  });
});
