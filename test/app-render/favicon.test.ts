// The page's icon is a raster image (docs/app.md "Long chats", Opening: LC9). Chromium fetches the page's icon again on
// every in-page navigation, so each chat opened (#/s/<id>) loaded it anew; an SVG icon is parsed and drawn as a
// document of its own on the page's main thread each time (15-35 ms throttled 4x, in the middle of the open), a PNG is
// decoded off it. No browser: the rule is read from app/index.html.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const html = readFileSync(new URL("../../app/index.html", import.meta.url), "utf8");
const iconLinks = [...html.matchAll(/<link\b[^>]*\brel="(?:shortcut )?icon"[^>]*>/g)].map(([link]) => link);

describe("the page's icon", () => {
  it("is a PNG, never an SVG the page would draw again on each chat opened (LC9)", () => {
    expect(iconLinks.length).toBeGreaterThan(0);
    for (const link of iconLinks) {
      expect(link).toMatch(/href="[^"]+\.png"/);
      expect(link).toMatch(/type="image\/png"/);
    }
  });
});
