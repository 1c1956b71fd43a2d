// Approvals in the app (issue 23 item 4; docs/app.md AP5, AP6): a phone-sized page that reaches only the bridge
// (server_url is a closed port) approves a real MCP tool call (the filesystem server from npm on a temp dir, driven
// by the scripted backend) from the approval dialog; a second device (a desktop, where the approval is a card above
// the composer) showing the same chat sees it close as soon as the first answered; Deny with a message refuses the
// call and the model reads the message.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closedPort } from "../relay/stack.ts";
import { filesystemServer, scriptCalls } from "../mcp/helpers.ts";
import { AppStack } from "./support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE, SHOTS } from "./support/browser.ts";
import { axeSerious } from "./support/axe.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });
let stack: AppStack;
let browser: Browser;
let phone: Page;
let other: Page;
let dir: string;
let unreachable: string;
const errors: string[] = [];
/** Requests either page made to server_url: the library may try it, and each fails (nothing listens there). */
const direct: string[] = [];
const TOOL = "mcp__fs__write_file";

beforeAll(async () => {
  unreachable = `http://127.0.0.1:${await closedPort()}`;
  const fs = filesystemServer();
  dir = fs.dir;
  const config = {
    mcp_servers: { fs: fs.config },
    agents: { default: { provider_id: "default", tools: ["mcp__fs__*"] } },
  };
  [stack, browser] = await Promise.all([
    AppStack.startApp(config as never, { publicUrl: unreachable, appOnBridge: true }),
    launchBrowser(),
  ]);
  const pages = await Promise.all([openPage(browser, PHONE), openPage(browser, DESKTOP)]);
  [phone, other] = pages.map((opened) => opened.page) as [Page, Page];
  for (const { page, errors: pageErrors } of pages) {
    page.on("request", (request) => void (request.url().startsWith(unreachable) && direct.push(request.url())));
    page.on("pageerror", () => errors.push(...pageErrors.splice(0)));
  }
  for (const page of [phone, other]) {
    await page.goto((await stack.createPairing()).pair_url);
    await page.locator('.connection[data-state="live"]').waitFor();
  }
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** Both devices show the chat; the phone asks for the tool call; resolves once both show the approval. */
async function askForWrite(file: string, reply: string): Promise<string> {
  const sessionId = await stack.createSession();
  scriptCalls(
    stack.backend,
    [{ id: "w1", name: TOOL, args: { path: join(dir, file), content: "approved away" } }],
    reply,
  );
  for (const page of [phone, other]) {
    await page.goto(`${stack.bridgeAppUrl}#/s/${sessionId}`);
    await page.getByRole("textbox", { name: "Message" }).waitFor();
  }
  await phone.getByRole("textbox", { name: "Message" }).fill(`write ${file}`);
  await phone.getByRole("textbox", { name: "Message" }).press("Enter");
  await Promise.all([phone, other].map((page) => page.getByRole("group", { name: TOOL }).waitFor()));
  return sessionId;
}

async function toolMessages(sessionId: string): Promise<Array<{ role: string; content: string }>> {
  const messages = (await stack.server.request({ method: "GET", url: `/sessions/${sessionId}/messages` })).json
    .messages as Array<{ role: string; content: string }>;
  return messages.filter((message) => message.role === "tool");
}

/** The `response` of the session's approval records, as the server keeps them. */
async function answeredBy(sessionId: string): Promise<unknown[]> {
  const url = `/sessions/${sessionId}/notifications?include_terminal=true`;
  const records = (await stack.server.request({ method: "GET", url })).json as Array<{
    kind: string;
    response?: Record<string, unknown>;
  }>;
  return records
    .filter((record) => record.kind === "interaction")
    .map(({ response }) => ({
      response: response?.response,
      ...(response?.message ? { message: response.message } : {}),
      by: response?.by,
    }));
}

describe("approvals in the app, through the bridge alone", () => {
  it("approves from the phone's dialog; the other device's card closes; the write runs (AP5)", async () => {
    const sessionId = await askForWrite("approved.txt", "The file is written.");
    const dialog = phone.getByRole("dialog", { name: "Approval needed" });
    const card = dialog.getByRole("group", { name: TOOL });
    await card.getByText("Waiting for approval").waitFor();
    expect(await card.locator("dd").allTextContents()).toEqual([TOOL, "fs"]);
    expect(await card.getByLabel("Arguments").textContent()).toContain('"content": "approved away"');
    expect(await axeSerious(phone)).toEqual([]);
    expect(await axeSerious(other)).toEqual([]);
    if (SHOTS) await phone.screenshot({ path: `${SHOTS}approval-phone.png` });
    if (SHOTS) await other.screenshot({ path: `${SHOTS}approval-desktop.png` });
    await card.getByRole("button", { name: "Approve" }).click();
    // The second device learns of the answer from the record's update event, and its dialog closes.
    await other.getByRole("group", { name: TOOL }).waitFor({ state: "detached" });
    await phone.getByRole("group", { name: TOOL }).waitFor({ state: "detached" });
    await phone.locator('article[data-role="assistant"]', { hasText: "The file is written." }).waitFor();
    expect(readFileSync(join(dir, "approved.txt"), "utf8")).toBe("approved away");
    expect(await toolMessages(sessionId)).toHaveLength(1);
    // A device answered, and it could only have done so through the bridge: server_url refuses every connection.
    expect(await answeredBy(sessionId)).toEqual([{ response: "approve", by: expect.stringMatching(/^device:/) }]);
    expect(direct.every((url) => url.startsWith(unreachable))).toBe(true);
    expect(errors).toEqual([]);
  });

  it("denies with a message from the card left in the chat; the call is refused and the model reads why (AP6)", async () => {
    const sessionId = await askForWrite("denied.txt", "Understood, not written.");
    // "Later" leaves the approval as a card in the chat, answered from there.
    await phone.getByRole("dialog", { name: "Approval needed" }).getByRole("button", { name: "Later" }).click();
    const card = phone.getByRole("region", { name: "Approvals" }).getByRole("group", { name: TOOL });
    await card.getByRole("textbox", { name: /Message for the model/ }).fill("not that folder");
    await card.getByRole("button", { name: "Deny" }).click();
    await other.getByRole("group", { name: TOOL }).waitFor({ state: "detached" });
    await phone.locator('article[data-role="assistant"]', { hasText: "Understood, not written." }).waitFor();
    expect(existsSync(join(dir, "denied.txt"))).toBe(false);
    const [refusal] = await toolMessages(sessionId);
    expect(refusal?.content).toContain("The user denied this tool call: not that folder");
    expect(await answeredBy(sessionId)).toEqual([
      { response: "deny", message: "not that folder", by: expect.stringMatching(/^device:/) },
    ]);
    expect(errors).toEqual([]);
  });
});
