// The audit log in the app, in Chromium over a real server and bridge (docs/app.md "Audit log", AL1-AL2): the admin
// pairs a device for another person from the People screen, opens People → Audit log and reads who did what for whom,
// with the exact time on a tap; an export of everything with the admin token is there too, concerning no one. The
// person's own device is told, in plain words, with what to do if they did not ask. axe-core finds nothing serious.
// APP_SCREENSHOTS=1 also writes the audit log pictures of docs/app/.
import { describe, expect, it, vi } from "vitest";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { until } from "../client/support/stack.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

describe("the audit log in the app", () => {
  it("shows the admin a pairing made for another person and an export of everything; the person is told (AL1, AL2)", async () => {
    const { server } = shared.stack;
    await server.request({ method: "POST", url: "/people", payload: { name: "Ana" } });
    const owner = await openPage(shared.browser, DESKTOP);
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url, "Owner laptop");

    await owner.page.goto(`${shared.stack.serverUrl}/#/people`);
    await owner.page.getByRole("button", { name: "Pair a device for Ana" }).click();
    const link = await owner.page.getByRole("group", { name: "Pairing link" }).getByRole("link").innerText();
    const ana = await openPage(shared.browser, PHONE);
    await pairThroughLink(ana.page, link, "Ana phone");
    // AL2: Ana's phone is told an admin made a code for her, plainly (no chat id), with what to do if she did not ask.
    const notice = ana.page.locator(".banner-stack .notification", { hasText: "pairing code" });
    await notice.waitFor();
    expect(await notice.innerText()).toContain("If you did not ask for a new device, check Devices");
    expect(await notice.innerText()).not.toMatch(/Chat [0-9a-f-]{8}/);

    await server.request({ method: "GET", url: "/export" });
    await owner.page.getByRole("link", { name: "Audit log" }).click();
    await owner.page.getByRole("heading", { name: "Audit log" }).waitFor();
    const entries = owner.page.locator(".audit-entry");
    await expect
      .poll(() => entries.locator(".audit-sentence").allInnerTexts())
      .toEqual(["The admin token exported every chat on the server", "Owner made a pairing code for a device of Ana"]);
    // The exact time on a tap, in place of "just now".
    const time = entries.first().locator(".audit-time");
    expect(await time.innerText()).toBe("just now");
    await time.click();
    expect(await time.innerText()).not.toBe("just now");
    expect(await time.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}audit-log-desktop.png` });

    await owner.page.setViewportSize(PHONE);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}audit-log-phone.png` });
    if (SHOTS) await ana.page.screenshot({ path: `${SHOTS}audit-notice-phone.png` });
    expect([...owner.errors, ...ana.errors]).toEqual([]);
    await owner.context.close();
    await ana.context.close();
  });

  it("a member who opens the address is told the log is an admin's (AL1)", async () => {
    const fresh = await openPage(shared.browser, PHONE);
    const { server } = shared.stack;
    const bo = (await server.request({ method: "POST", url: "/people", payload: { name: "Bo" } })).json.person;
    const created = (await server.request({ method: "POST", url: "/pairing", payload: { person_id: bo.id } })).json;
    const { bridge } = shared.stack;
    await until(
      () => bridge?.core.registry.findCode(hashPairingCode(created.code)) !== undefined,
      "code on the bridge",
    );
    await pairThroughLink(fresh.page, created.pair_url);
    await fresh.page.goto(`${shared.stack.serverUrl}/#/people/audit`);
    await fresh.page.getByText("Only an admin reads the audit log.").waitFor();
    await fresh.context.close();
  });
});
