// axe-core on the page as it is now: the serious and critical violations (or from moderate up), one line each (an
// empty list passes).
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

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
  await page.addScriptTag({ path: AXE_SOURCE });
  const violations = await page.evaluate(
    async () =>
      (await (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe.run()).violations,
  );
  return violations
    .filter((v) => IMPACTS.indexOf(v.impact ?? "minor") >= IMPACTS.indexOf(impact))
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}
