// axe-core on the page as it is now: the serious and critical violations (or from moderate up), one line each (an
// empty list passes).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

export async function axeSerious(page: Page): Promise<string[]> {
  return axeAtLeast(page, "serious");
}

const IMPACTS = ["minor", "moderate", "serious", "critical"];

/** The violations of `impact` or worse, one line each. */
export async function axeAtLeast(page: Page, impact: "moderate" | "serious"): Promise<string[]> {
  // Evaluated through the DevTools protocol, not added as a <script>: the app's page forbids inline scripts (its
  // Content-Security-Policy), and a tag would be refused.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async () =>
      (await (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe.run()).violations,
  );
  return violations
    .filter((v) => IMPACTS.indexOf(v.impact ?? "minor") >= IMPACTS.indexOf(impact))
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}
