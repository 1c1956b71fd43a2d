// axe-core (the well-kept accessibility checker) on every screen of the app, on a phone (390x844) and a desktop
// (1280x800): no serious or critical violation. The screens come from the shared tour (support/tour.ts).
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppStack } from "./support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE } from "./support/browser.ts";
import { pairPage, seed, STOPS, type Seeded } from "./support/tour.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

let stack: AppStack;
let browser: Browser;
let seeded: Seeded;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  seeded = seed(stack);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SOURCE });
  const violations = await page.evaluate(
    async () =>
      (await (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe.run()).violations,
  );
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

describe.each([
  ["phone", PHONE],
  ["desktop", DESKTOP],
])("axe-core on every screen (%s)", (label, viewport) => {
  it(`finds no serious or critical violation (X1 ${label})`, async () => {
    const fresh = await openPage(browser, viewport);
    const paired = await openPage(browser, viewport);
    await pairPage(paired.page, stack, `axe ${label}`);
    const found: Record<string, string[]> = {};
    for (const stop of STOPS) {
      const page = stop.paired ? paired.page : fresh.page;
      await stop.visit(page, stack, seeded);
      found[stop.name] = await seriousViolations(page);
    }
    expect(found).toEqual(Object.fromEntries(STOPS.map((stop) => [stop.name, []])));
    expect([...fresh.errors, ...paired.errors]).toEqual([]);
    await fresh.context.close();
    await paired.context.close();
  });
});
