// A person's limits and notices (docs/people.md invariants N15-N18): allowed agents, the daily request limit,
// application notifications for some people, dismissing one meant for everyone, the new-device notice.
import { systemClock } from "../../server/clock.ts";
import { expect, it } from "vitest";
import { chatOf, pairDevice, startHousehold, sendAs } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

it("N15: a person may use only their allowed agents (403 agent_not_allowed)", async () => {
  const h = closing.own(await startHousehold());
  const { server, child } = h;
  const refused = await server.request({
    method: "POST",
    url: "/sessions",
    token: child.e2e.token,
    payload: { agent_id: "default" },
  });
  expect([refused.status, refused.json.error.code]).toEqual([403, "agent_not_allowed"]);
  const defaulted = await server.request({ method: "POST", url: "/sessions", token: child.e2e.token, payload: {} });
  expect(defaulted.status).toBe(403);
  expect(
    (await server.request({ method: "POST", url: "/sessions", token: child.e2e.token, payload: { agent_id: "kids" } }))
      .status,
  ).toBe(201);
  // A chat whose agent was allowed when made refuses sends once it is not.
  const chat = await chatOf(server, child.plain.token, "hello", "kids");
  await server.request({ method: "PATCH", url: `/people/${child.id}`, payload: { agents: ["other"] } });
  const send = await sendAs(server, child.plain.token, chat, "hi");
  expect([send.status, send.json.error.code]).toEqual([403, "agent_not_allowed"]);
});

it("N16: past max_requests_per_day a request is 429 daily_limit_reached with retry_after and Retry-After", async () => {
  const h = closing.own(await startHousehold());
  const { server, child, adult } = h;
  const chat = await chatOf(server, child.plain.token, "hello", "kids");
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const answer = await server.request({
      method: "POST",
      url: `/sessions/${chat}/regenerate`,
      token: child.plain.token,
      payload: {},
    });
    statuses.push(answer.status);
    await server.runtime.ctx.runner.stopSession(chat);
  }
  expect(statuses.every((status) => status !== 429)).toBe(true);
  const third = await sendAs(server, child.e2e.token, chat, "one more");
  expect(third.status).toBe(429);
  expect(third.json.error.code).toBe("daily_limit_reached");
  const retryAfter = third.json.error.details.retry_after;
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
  expect(server.runtime.app).toBeDefined();
  // The header says the same (checked on the raw answer).
  const raw = await server.runtime.app.inject({
    method: "POST",
    url: `/sessions/${chat}/send`,
    headers: { authorization: `Bearer ${child.e2e.token}` },
    payload: { content: "again" },
  });
  expect(raw.headers["retry-after"]).toBe(String(JSON.parse(raw.body).error.details.retry_after));
  // Another person is not limited by it.
  const theirs = await chatOf(server, adult.plain.token, "hi");
  const ok = await sendAs(server, adult.plain.token, theirs, "x");
  expect(ok.status).toBe(202);
});

it("N17: an application notification for some people reaches only them; dismissing one meant for everyone is per person", async () => {
  const h = closing.own(await startHousehold());
  const { server, adult, child } = h;
  const some = await server.request({
    method: "POST",
    url: "/application/notifications",
    payload: { key: "for-ana", severity: "info", title: "ONLY-FOR-ANA", audience: [adult.id] },
  });
  expect(some.status).toBe(201);
  const all = await server.request({
    method: "POST",
    url: "/application/notifications",
    payload: { key: "for-all", severity: "info", title: "FOR-EVERYONE" },
  });
  const listOf = async (token: string) =>
    (await server.request({ method: "GET", url: "/application/notifications", token })).text;
  expect(await listOf(adult.e2e.token)).toContain("ONLY-FOR-ANA");
  expect(await listOf(child.e2e.token)).not.toContain("ONLY-FOR-ANA");
  const childEvents = await server.request({ method: "GET", url: "/events?since_id=0", token: child.plain.token });
  expect(childEvents.text).not.toContain("ONLY-FOR-ANA");
  const hidden = await server.request({
    method: "POST",
    url: `/application/notifications/${some.json.id}/dismiss`,
    token: child.e2e.token,
    payload: {},
  });
  expect([hidden.status, hidden.json.error.code]).toEqual([404, "notification_not_found"]);

  const dismissed = await server.request({
    method: "POST",
    url: `/application/notifications/${all.json.id}/dismiss`,
    token: adult.e2e.token,
    payload: {},
  });
  expect(dismissed.status).toBe(200);
  expect(await listOf(adult.plain.token)).not.toContain("FOR-EVERYONE");
  expect(await listOf(child.plain.token)).toContain("FOR-EVERYONE");
});

it("N18: a device joining a person is announced to that person's other devices, and the new device cannot dismiss it", async () => {
  // The server's clock says when the pairing was, not the machine's.
  const at = Date.UTC(2031, 4, 6, 14, 2, 30);
  const h = closing.own(await startHousehold({}, { clock: { ...systemClock, now: () => at } }));
  const { server, adult, child } = h;
  const tablet = pairDevice(server, adult.id, "Pixel 8", false);
  const list = await server.request({ method: "GET", url: "/application/notifications", token: adult.e2e.token });
  const notice = list.json.find((record: { title: string }) => record.title === "New device: Pixel 8");
  expect(notice).toBeDefined();
  expect(notice.body).toContain("paired to your account at 14:02 UTC");
  expect(
    JSON.stringify(
      (await server.request({ method: "GET", url: "/application/notifications", token: child.e2e.token })).json,
    ),
  ).not.toContain("Pixel 8");
  const byNew = await server.request({
    method: "POST",
    url: `/application/notifications/${notice.id}/dismiss`,
    token: tablet.token,
    payload: {},
  });
  expect([byNew.status, byNew.json.error.code]).toEqual([403, "notice_not_dismissable"]);
  const byOld = await server.request({
    method: "POST",
    url: `/application/notifications/${notice.id}/dismiss`,
    token: adult.plain.token,
    payload: {},
  });
  expect(byOld.status).toBe(200);
});
