// A tour of every screen of the app over a seeded stack: the accessibility test runs axe-core on each stop, and
// scripts/screenshots.ts photographs each one for docs/app.md. Seeded: two chats (one with markdown, code, a
// tool call and its result, usage), an application banner and a session notification.
import type { Page } from "playwright-core";
import { WebSocket as NodeWebSocket } from "ws";
import { pair, parsePairUrl, type WebSocketConstructor } from "../../../client/index.ts";
import { ADMIN_TOKEN } from "../../support/server.ts";
import { dialectStream } from "../../../scripts/scripted-backend/index.ts";
import type { AppStack } from "./app-stack.ts";
import { pairThroughLink } from "./browser.ts";

export interface Seeded {
  chatId: string;
  /** The Lisbon chat (a plain question and answer). */
  olderId: string;
}

const REPLY = [
  "Here is a small **TypeScript** helper that retries a promise with backoff:",
  "",
  "```ts",
  "export async function retry<T>(work: () => Promise<T>, delays = [250, 500, 1000]): Promise<T> {",
  "  for (const delay of delays) {",
  "    try {",
  "      return await work();",
  "    } catch {",
  "      await new Promise((resolve) => setTimeout(resolve, delay));",
  "    }",
  "  }",
  "  return work();",
  "}",
  "```",
  "",
  "- Each failure waits a little longer.",
  "- The last attempt's error reaches the caller.",
].join("\n");

export function seed(stack: AppStack): Seeded {
  const { sessions } = stack.server.runtime.ctx;
  const older = sessions.create();
  sessions.append(older.id, { role: "user", content: "Plan a weekend in Lisbon" });
  sessions.append(older.id, {
    role: "assistant",
    content: "Day one: Alfama and the castle. Day two: Belém and a tram ride.",
    metadata: {},
  });
  const chat = sessions.create();
  sessions.append(chat.id, { role: "user", content: "What's the weather in Oslo? Then write a retry helper." });
  const call = { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } };
  sessions.append(chat.id, {
    role: "assistant",
    content: "",
    metadata: { tool_calls: [call], reasoning: "The user wants the weather first; call the tool." },
  });
  sessions.append(chat.id, {
    role: "tool",
    content: "sunny in Oslo",
    metadata: {
      tool_call_id: "c1",
      tool_name: "get_weather",
      display: { type: "text", content: "☀ Sunny in Oslo, 18 °C" },
    },
  });
  const usage = {
    usage_prompt_tokens: 1834,
    usage_completion_tokens: 212,
    usage_total_tokens: 2046,
    usage_prompt_tokens_formatted: "1.8k",
    usage_completion_tokens_formatted: "212",
    usage_total_tokens_formatted: "2.0k",
  };
  sessions.append(chat.id, { role: "assistant", content: `It is sunny in Oslo (18 °C).\n\n${REPLY}`, metadata: usage });
  stack.notifyApplication({
    key: "backup",
    severity: "warning",
    title: "Backup is late",
    body: "The last backup finished 3 days ago.",
    display: { presentation: "banner" },
  });
  stack.notifySession(
    chat.id,
    {
      key: "deploy",
      severity: "info",
      title: "Deploy needs approval",
      body: "Staging is ready to promote.",
      display: { presentation: "inline" },
    },
    "docs",
  );
  return { chatId: chat.id, olderId: older.id };
}

export interface Stop {
  name: string;
  /** Needs a paired page (else the page is fresh, not paired). */
  paired: boolean;
  visit(page: Page, stack: AppStack, seeded: Seeded): Promise<void>;
}

const settle = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** The composer with its voice controls: they come with a chunk loaded after the first paint and the server's answer. */
const composerComplete = (page: Page) => page.getByRole("button", { name: "Dictate" }).waitFor();

export const STOPS: Stop[] = [
  {
    name: "pair-link-used",
    paired: false,
    async visit(page, stack) {
      // A link whose code was already used: the screen says how to get a new one.
      const { pair_url } = await stack.createPairing();
      await usedUp(stack, pair_url);
      await page.goto(pair_url);
      await page.getByRole("alert").filter({ hasText: "already used or has expired" }).waitFor();
    },
  },
  {
    name: "pair-manual",
    paired: false,
    async visit(page, stack) {
      await page.goto(`${stack.serverUrl}/#/pair`);
      await page.getByLabel("Pairing code").fill("WRONG-CODE1");
      await page.getByLabel("Bridge address").fill(stack.bridgeUrl);
      await page.getByRole("button", { name: "Pair", exact: true }).click();
      await page.getByRole("alert").waitFor();
    },
  },
  {
    name: "pair-fingerprint",
    paired: false,
    async visit(page, stack) {
      const { code } = await stack.createPairing();
      await page.goto(`${stack.serverUrl}/#/pair`);
      await page.getByLabel("Pairing code").fill(code);
      await page.getByLabel("Bridge address").fill(stack.bridgeUrl);
      await page.getByRole("button", { name: "Pair", exact: true }).click();
      await page.getByLabel("Server fingerprint").waitFor();
    },
  },
  {
    name: "chats",
    paired: true,
    async visit(page, stack) {
      await page.goto(`${stack.serverUrl}/#/`);
      await page.locator(".session-row").nth(1).waitFor();
      await page.locator(".notification.banner").waitFor();
      // The list as it stands once connected: the rows come from the cache first, before the badge has settled.
      await page.locator(".connection", { hasText: "Live" }).waitFor();
    },
  },
  {
    name: "chat",
    paired: true,
    async visit(page, stack, seeded) {
      await page.goto(`${stack.serverUrl}/#/s/${seeded.chatId}`);
      await page.getByText("Each failure waits a little longer.").waitFor();
      await page.locator("code[data-highlighted]").first().waitFor();
      await page.getByText("Deploy needs approval").first().waitFor();
      await composerComplete(page);
      await settle(page);
    },
  },
  {
    name: "new-chat",
    paired: true,
    async visit(page, stack) {
      await page.goto(`${stack.serverUrl}/#/new`);
      await page.getByText("How can I help?").waitFor();
      await composerComplete(page);
    },
  },
  {
    name: "devices-login",
    // A paired device of a server with people lists its person's devices with its own token: the admin token is
    // asked for on a browser that is not paired.
    paired: false,
    async visit(page, stack) {
      await page.goto(`${stack.serverUrl}/#/devices`);
      await page.evaluate(() => localStorage.removeItem("chat-relay.admin-token"));
      await page.reload();
      await page.getByLabel("Admin token").waitFor();
    },
  },
  {
    name: "devices",
    paired: true,
    async visit(page, stack) {
      await page.evaluate(
        (token) => localStorage.setItem("chat-relay.admin-token", JSON.stringify(token)),
        ADMIN_TOKEN,
      );
      await page.goto(`${stack.serverUrl}/#/devices`);
      await page.reload();
      await page.getByRole("button", { name: "Add device" }).click();
      await page.locator("img.qr").waitFor();
      await page.locator(".device").first().waitFor();
    },
  },
  {
    name: "chat-versions",
    paired: true,
    async visit(page, stack, seeded) {
      // Another answer to the Lisbon question: the turn now has versions, "‹ n / n ›" under the reply.
      stack.backend.script(
        dialectStream("openai", { content: "Day one: Sintra's palaces. Day two: Cascais and the coast." }),
      );
      await stack.server.request({ method: "POST", url: `/sessions/${seeded.olderId}/regenerate`, payload: {} });
      await page.goto(`${stack.serverUrl}/#/s/${seeded.olderId}`);
      await page.getByText("Sintra's palaces").waitFor();
      await page.locator(".versions").waitFor();
      await composerComplete(page);
      await settle(page);
    },
  },
  {
    name: "delete-chat",
    paired: true,
    async visit(page, stack, seeded) {
      await page.goto(`${stack.serverUrl}/#/s/${seeded.olderId}`);
      await page.getByRole("button", { name: "Delete chat" }).click();
      await page.getByRole("dialog", { name: "Delete chat?" }).waitFor();
      await settle(page);
    },
  },
  {
    name: "archived",
    paired: true,
    async visit(page, stack) {
      const id = await stack.createSession();
      await stack.append(id, "An old project, archived");
      await stack.server.request({ method: "PATCH", url: `/sessions/${id}`, payload: { archived: true } });
      await page.goto(`${stack.serverUrl}/#/archived`);
      await page.locator(".session-row").first().waitFor();
    },
  },
  {
    name: "menu",
    paired: true,
    async visit(page, stack) {
      await page.goto(`${stack.serverUrl}/#/`);
      await page.locator("summary[aria-label=Menu]").click();
      await page.getByRole("switch", { name: "Notifications on this device" }).waitFor();
      await settle(page);
    },
  },
  {
    name: "history",
    paired: true,
    async visit(page, stack) {
      // The menu stop before this one leaves the menu open: going to the history closes it (docs/app.md L10).
      await page.goto(`${stack.serverUrl}/#/history`);
      await page.locator(".history-item").first().waitFor();
    },
  },
];

/** Uses up a pairing code from another (Node) device, so the link that carries it is spent. */
async function usedUp(stack: AppStack, pairUrl: string): Promise<void> {
  const link = parsePairUrl(pairUrl)!;
  await pair({
    bridgeUrl: link.bridge,
    code: link.code,
    deviceName: "spent the code",
    serverKey: link.key,
    WebSocket: NodeWebSocket as unknown as WebSocketConstructor,
  });
}

/** Pairs `page` through pair_url (the paired stops need it). */
export async function pairPage(page: Page, stack: AppStack, deviceName: string): Promise<void> {
  await pairThroughLink(page, (await stack.createPairing()).pair_url, deviceName);
}
