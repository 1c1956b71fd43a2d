// axe-core (the well-kept accessibility checker) on every screen of the app, on a phone (390x844) and a desktop
// (1280x800): no serious or critical violation; on the chat screen, no moderate one either. The screens come from the
// shared tour (support/tour.ts).
import { beforeAll, describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { axeAtLeast, axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, PHONE } from "./support/browser.ts";
import { pairPage, seed, STOPS, type Seeded } from "./support/tour.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const shared = useAppBrowser();
/** The tour's stops that show the chat screen (a chat with a tool call and code, a new chat, a turn with versions). */
const CHAT_STOPS = ["chat", "new-chat", "chat-versions"];
let seeded: Seeded;

beforeAll(() => {
  seeded = seed(shared.stack);
});

describe.each([
  ["phone", PHONE],
  ["desktop", DESKTOP],
])("axe-core on every screen (%s)", (label, viewport) => {
  it(`finds no serious or critical violation (X1 ${label})`, async () => {
    const fresh = await openPage(shared.browser, viewport);
    const paired = await openPage(shared.browser, viewport);
    await pairPage(paired.page, shared.stack, `axe ${label}`);
    const found: Record<string, string[]> = {};
    for (const stop of STOPS) {
      const page = stop.paired ? paired.page : fresh.page;
      await stop.visit(page, shared.stack, seeded);
      found[stop.name] = await axeSerious(page);
    }
    expect(found).toEqual(Object.fromEntries(STOPS.map((stop) => [stop.name, []])));
    expect([...fresh.errors, ...paired.errors]).toEqual([]);
    await fresh.context.close();
    await paired.context.close();
  });

  it(`finds no moderate violation either on the chat screen (X2 ${label})`, async () => {
    const paired = await openPage(shared.browser, viewport);
    await pairPage(paired.page, shared.stack, `axe chat ${label}`);
    const found: Record<string, string[]> = {};
    for (const stop of STOPS.filter((stop) => CHAT_STOPS.includes(stop.name))) {
      await stop.visit(paired.page, shared.stack, seeded);
      found[stop.name] = await axeAtLeast(paired.page, "moderate");
    }
    expect(found).toEqual(Object.fromEntries(CHAT_STOPS.map((name) => [name, []])));
    expect(paired.errors).toEqual([]);
    await paired.context.close();
  });
});
