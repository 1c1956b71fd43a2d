// Delivery (docs/push.md "Delivery", invariants P5, P7-P9): coalescing per tag while a lane waits, approvals never
// coalesced, bounded retries of 429/5xx with backoff on the clock, 404/410 removing the subscription, and the
// "revoked" push that is a device's last.
import { afterEach, expect, it } from "vitest";
import { GateClock } from "./support/gate-clock.ts";
import { PushHarness } from "./support/harness.ts";

let h: PushHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it("updates of a record queued behind a retry are coalesced to the newest; approvals are never coalesced", async () => {
  const clock = new GateClock();
  h = await PushHarness.start({}, {}, clock);
  const phone = await h.device();
  const sid = await h.newSession();
  h.service.refusals.push({ status: 503 });
  h.api.application.create({ key: "deploy", severity: "warning", title: "Deploy 1/3" });
  h.api.session(sid).create({ key: "approval:r:0", kind: "interaction", severity: "info", title: "mcp__shell__run" });
  // One lane per subscription: the warning waits out its backoff, the approval queued behind it.
  await clock.sleeps(1);
  h.api.application.updateByKey({ key: "deploy", severity: "warning", title: "Deploy 2/3" });
  h.api.application.updateByKey({ key: "deploy", severity: "warning", title: "Deploy 3/3" });
  h.api.session(sid).respond({ key: "approval:r:0" });
  await h.push.caughtUp();
  clock.release();
  const messages = await h.received(phone);
  expect(messages.map((m) => [m.type, m.title])).toEqual([
    ["approval", "mcp__shell__run"],
    ["notification", "Deploy 3/3"],
    ["done", "mcp__shell__run"],
  ]);
});

it("429 and 5xx are retried with backoff (Retry-After when given) a bounded number of times, then given up", async () => {
  const clock = new GateClock(60_000);
  h = await PushHarness.start({}, {}, clock);
  const phone = await h.device();
  h.service.refusals.push({ status: 429, retryAfter: "7" }, { status: 500 }, { status: 502 });
  h.api.application.create({ key: "a", severity: "warning", title: "Retried" });
  expect((await h.received(phone)).map((m) => m.title)).toEqual(["Retried"]);
  expect(clock.asked).toEqual([7000, 2000, 4000]);
  expect(h.tapped(phone).map((push) => push.status)).toEqual([429, 500, 502, 201]);

  h.service.refusals.push(...Array.from({ length: 5 }, () => ({ status: 503 })));
  h.api.application.create({ key: "b", severity: "warning", title: "Given up" });
  expect((await h.received(phone)).map((m) => m.title)).toEqual(["Retried"]);
  expect(h.tapped(phone)).toHaveLength(9);
  expect(h.push.queue.counts).toMatchObject({ delivered: 1, retried: 7, dropped: 1 });
  // The subscription is kept: a busy push service is no reason to forget a device.
  expect(h.push.subscriptions.ofDevice(phone.id)).toHaveLength(1);
});

it("a 410 from the push service removes the subscription; nothing more is posted to it", async () => {
  h = await PushHarness.start();
  const phone = await h.device("phone");
  const tablet = await h.device("tablet");
  await h.service.expire(phone.subscription.clientHash);
  h.api.application.create({ key: "a", severity: "error", title: "First" });
  await h.push.settled();
  expect(h.tapped(phone).map((push) => push.status)).toEqual([410]);
  expect(h.push.subscriptions.ofDevice(phone.id)).toEqual([]);
  h.api.application.create({ key: "b", severity: "error", title: "Second" });
  expect((await h.received(tablet)).map((m) => m.title)).toEqual(["First", "Second"]);
  expect(h.tapped(phone)).toHaveLength(1);
});

it("a revoked device gets one 'revoked' push, loses its subscriptions, and is pushed nothing after", async () => {
  h = await PushHarness.start();
  const phone = await h.device("phone");
  const tablet = await h.device("tablet");
  h.api.application.create({ key: "a", severity: "warning", title: "Before" });
  await h.push.settled();
  const revoked = await h.server.request({ method: "DELETE", url: `/devices/${phone.id}` });
  expect(revoked.status).toBe(200);
  expect(h.push.subscriptions.ofDevice(phone.id)).toEqual([]);
  h.api.application.create({ key: "b", severity: "warning", title: "After" });
  const messages = await h.received(phone);
  expect(messages.map((m) => m.type)).toEqual(["notification", "revoked"]);
  expect(messages[1]).toEqual({
    v: 1,
    type: "revoked",
    tag: "revoked",
    title: "This device was removed",
    body: "Its saved chats were deleted from this device.",
  });
  expect(h.tapped(phone)[1]!.headers.urgency).toBe("high");
  expect((await h.received(tablet)).map((m) => m.title)).toEqual(["Before", "After"]);
  // Its token is refused now, so it cannot subscribe again.
  const again = await h.server.request({ method: "POST", url: "/push/subscriptions", token: phone.token, payload: {} });
  expect(again.status).toBe(401);
});

it("a device's pushes still waiting when it is revoked are dropped; only the 'revoked' one goes", async () => {
  const clock = new GateClock();
  h = await PushHarness.start({}, {}, clock);
  const phone = await h.device();
  h.service.refusals.push({ status: 503 });
  h.api.application.create({ key: "a", severity: "warning", title: "Stuck" });
  await clock.sleeps(1);
  h.api.application.create({ key: "b", severity: "warning", title: "Queued" });
  await h.push.caughtUp();
  await h.server.request({ method: "DELETE", url: `/devices/${phone.id}` });
  clock.release();
  expect((await h.received(phone)).map((m) => m.type)).toEqual(["revoked"]);
});
