// The renderer in Chromium (the browser the app runs in; DOMPurify does not support happy-dom): KaTeX's output
// survives sanitizing while hostile input does not, the renderer and KaTeX load only when needed (the source text
// shows meanwhile), task lists and code blocks at a phone's width, and the image dialog. docs/app.md "Rendering".
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, PHONE, type AppPage } from "../app/support/browser.ts";
import { startHarness, type Harness } from "./support/harness.ts";
import { PHOTO_PATH, photoBytes, sampleMessages } from "./support/sample.ts";

let harness: Harness;
let browser: Browser;
const opened: AppPage[] = [];

beforeAll(async () => {
  [harness, browser] = await Promise.all([startHarness(), launchBrowser()]);
  harness.addFile(PHOTO_PATH, photoBytes(), "image/png");
}, 120_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((page) => page.context.close()));
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

async function harnessPage(viewport = PHONE): Promise<AppPage> {
  const page = await openPage(browser, viewport);
  opened.push(page);
  await page.page.goto(harness.url);
  await page.page.waitForFunction(() => "harness" in window);
  return page;
}

const renderIn = (page: Page, text: string) =>
  page.evaluate((source) => (window as any).harness.render(source) as Promise<string>, text);

/** Everything in `html` that could run script or leave the page: event handlers, javascript: URLs, active tags. */
function activeParts(page: Page, html: string): Promise<string[]> {
  return page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(`<body>${source}</body>`, "text/html");
    const found: string[] = [];
    for (const element of Array.from(doc.body.querySelectorAll("*"))) {
      if (/^(script|iframe|object|embed|style|form|link|meta|base|foreignobject|use)$/i.test(element.tagName))
        found.push(element.tagName);
      for (const attribute of Array.from(element.attributes)) {
        if (/^on/i.test(attribute.name)) found.push(`${element.tagName} ${attribute.name}`);
        if (/javascript:|vbscript:|data:text/i.test(attribute.value.replace(/[\s\u0000-\u001f]/g, "")))
          found.push(`${element.tagName} ${attribute.name}=${attribute.value}`);
      }
    }
    return found;
  }, html);
}

describe("sanitizing", () => {
  it("keeps raw HTML as text and drops javascript: links", async () => {
    const { page, errors } = await harnessPage();
    const html = await renderIn(
      page,
      '<img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n[a](javascript:alert(3)) [b](JaVaScRiPt:alert(4)) ![c](javascript:alert(5)) <a href="javascript:alert(6)">d</a> [ok](https://example.org)',
    );
    expect(await activeParts(page, html)).toEqual([]);
    expect(html).toContain("&lt;img src=x onerror=");
    expect(html).toContain('<a href="https://example.org" target="_blank" rel="noopener noreferrer nofollow">ok</a>');
    expect(html.match(/<a /g)).toHaveLength(1);
    expect(html).not.toContain("<img");
    expect(errors).toEqual([]);
  });

  it("refuses KaTeX's trusted commands: trust stays off", async () => {
    const { page } = await harnessPage();
    const commands = [
      "\\href{javascript:alert(1)}{click}",
      "\\url{javascript:alert(2)}",
      "\\htmlClass{evil}{x}",
      "\\htmlId{evil}{x}",
      "\\htmlData{onclick=alert(1)}{y}",
      "\\htmlStyle{position:fixed;inset:0}{z}",
      "\\includegraphics{https://example.org/x.png}",
    ];
    const html = await renderIn(page, commands.map((command) => `$${command}$`).join(" "));
    expect(await activeParts(page, html)).toEqual([]);
    // The TeX source stays in the MathML annotation, as text; outside it, each command shows as red text only.
    const shown = html.replace(/<annotation[^>]*>[^<]*<\/annotation>/g, "");
    expect(shown).not.toMatch(/<a |<img |evil|data-onclick|position:\s*fixed|example\.org/);
    for (const command of commands) {
      const name = command.slice(0, command.indexOf("{"));
      expect(shown).toContain(`<span class="mord" style="color:#cc0000;">${name}</span>`);
    }
  });

  it("keeps KaTeX's HTML, MathML with its TeX annotation, and SVG through the sanitizer", async () => {
    const { page } = await harnessPage();
    const html = await renderIn(page, "$\\sqrt{x^2+1}$ and $$\\overrightarrow{AB}$$");
    expect(await activeParts(page, html)).toEqual([]);
    expect(html).toContain('<span class="katex">');
    expect(html).toContain('<annotation encoding="application/x-tex">\\sqrt{x^2+1}</annotation>');
    expect(html).toMatch(/<svg[^>]*><path d="M/);
    expect(html).toContain('class="math-display" tabindex="0"><span class="katex-display">');
  });

  it("leaves prices as text next to real math", async () => {
    const { page } = await harnessPage();
    const html = await renderIn(page, "Both prints cost $5 and $10, and $x^2$ is math.");
    expect(html.match(/class="katex"/g)).toHaveLength(1);
    expect(html).toContain("Both prints cost $5 and $10, and ");
  });
});

describe("lazy loading", () => {
  it("shows the source text while the renderer and KaTeX load, then renders", async () => {
    const { page } = await harnessPage();
    const held: Array<() => void> = [];
    await page.route(/\/assets\/(markdown|math)-[^/]*\.js$/, (route) => held.push(() => void route.continue()));
    await page.evaluate(() => (window as any).harness.show([{ role: "assistant", text: "**Area** is $\\pi r^2$." }]));
    await expect.poll(() => page.locator(".markdown-source").textContent()).toBe("**Area** is $\\pi r^2$.");
    await expect.poll(() => held.length).toBe(1); // the renderer's chunk, held
    held.shift()!();
    await expect.poll(() => page.locator(".markdown strong").textContent()).toBe("Area");
    expect(await page.locator(".math-source").textContent()).toBe("$\\pi r^2$");
    await expect.poll(() => held.length).toBe(1); // KaTeX's chunk, held
    held.shift()!();
    await page.locator(".markdown .katex").waitFor();
    expect(await page.locator(".math-source").count()).toBe(0);
    // KaTeX's stylesheet came with it: its fonts are in use.
    expect(
      await page
        .locator(".katex .mathnormal")
        .first()
        .evaluate((node) => getComputedStyle(node).fontFamily),
    ).toContain("KaTeX_Math");
  });

  it("loads neither markdown-it nor KaTeX before a message needs them", async () => {
    const { page } = await harnessPage();
    const loaded = await page.evaluate(() => performance.getEntriesByType("resource").map((entry) => entry.name));
    expect(loaded.filter((name) => /\/assets\/(markdown|math|katex)/.test(name))).toEqual([]);
    await page.evaluate(() => (window as any).harness.show([{ role: "assistant", text: "plain *text*" }]));
    await page.locator(".markdown em").waitFor();
    const after = await page.evaluate(() => performance.getEntriesByType("resource").map((entry) => entry.name));
    expect(after.filter((name) => /\/assets\/markdown-/.test(name))).toHaveLength(1);
    expect(after.filter((name) => /\/assets\/math-|katex/i.test(name))).toEqual([]);
  });
});

describe("a message with math, a task list, a code block and images, on a phone", () => {
  it("renders them without widening the page", async () => {
    const { page, errors } = await harnessPage();
    await page.evaluate((messages) => (window as any).harness.show(messages), sampleMessages(harness.url));
    await page.locator(".math-display .katex-display").waitFor();
    expect(await page.locator(".katex").count()).toBe(4);
    const tasks = page.getByRole("checkbox");
    expect(await tasks.count()).toBe(3);
    expect(await page.getByRole("checkbox", { name: "measure the radius" }).isChecked()).toBe(true);
    expect(await page.getByRole("checkbox", { name: "compute the area" }).isChecked()).toBe(false);
    expect(await page.getByRole("checkbox", { name: "compute the area" }).isDisabled()).toBe(true);
    const widths = await page.evaluate(() => {
      const pre = document.querySelector(".code-block pre")!;
      const scroller = document.querySelector(".message-scroller")!;
      const widest = Math.max(
        ...Array.from(document.querySelectorAll(".message-row, .markdown > *")).map(
          (node) => node.getBoundingClientRect().right,
        ),
      );
      return {
        page: document.documentElement.scrollWidth,
        scroller: scroller.scrollWidth,
        widest,
        viewport: innerWidth,
        pre: pre.scrollWidth,
        preBox: pre.clientWidth,
      };
    });
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    expect(widths.scroller).toBeLessThanOrEqual(widths.viewport);
    expect(widths.widest).toBeLessThanOrEqual(widths.viewport);
    expect(widths.pre).toBeGreaterThan(widths.preBox); // the long line scrolls inside the block
    expect(errors).toEqual([]);
  });

  it("opens an attached image at full size in a dialog that Escape closes, focus back on the thumbnail", async () => {
    const { page } = await harnessPage();
    await page.evaluate((messages) => (window as any).harness.show(messages), sampleMessages(harness.url));
    const thumbnail = page.getByRole("button", { name: "View attached image 2 of 2" });
    await expect.poll(() => thumbnail.isEnabled()).toBe(true);
    await thumbnail.click();
    const dialog = page.getByRole("dialog", { name: "Attached image 2 of 2" });
    await dialog.waitFor();
    const image = dialog.getByRole("img", { name: "Attached image 2 of 2" });
    await expect.poll(() => image.evaluate((node: HTMLImageElement) => node.complete && node.naturalWidth)).toBe(192);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await thumbnail.evaluate((node) => node === document.activeElement)).toBe(true);
    await page.getByRole("button", { name: "View attached image 1 of 2" }).click();
    await page.getByRole("button", { name: "Close image" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
  });

  it("leaves out attachments that are not images it may show", async () => {
    const { page } = await harnessPage();
    const attachments = [
      { type: "image_url", url: "javascript:alert(1)" },
      { type: "image_data", data_url: "data:text/html;base64,PHNjcmlwdD4=" },
      { type: "file", url: "x" },
      "junk",
      { type: "image_url", url: `${harness.url}${PHOTO_PATH}` },
    ];
    await page.evaluate(
      (list) => (window as any).harness.show([{ role: "user", text: "hi", attachments: list }]),
      attachments,
    );
    await page.getByRole("button", { name: "View attached image" }).waitFor();
    expect(await page.locator(".thumbnail").count()).toBe(1);
  });
});
