// Voice in Chromium over a real server, bridge and the scripted backend's audio routes (docs/voice.md "In the app"):
// dictation from Chromium's fake microphone playing a WAV spoken by espeak-ng, and two hands-free rounds of
// conversation mode, with the microphone fed by the test (a stream the page's getUserMedia answers), so
// each utterance comes exactly when the test says.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { AppStack } from "./support/app-stack.ts";
import { axeSerious } from "./support/axe.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { launchWithMicrophone, say, spoken, STATE_TRAIL, TEST_MICROPHONE, TEST_SPEECH } from "./support/voice.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

let stack: AppStack;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "voice-"));
  const microphone = join(dir, "microphone.wav");
  writeFileSync(microphone, spoken("what is the weather in Lisbon", 1.5));
  [stack, browser] = await Promise.all([AppStack.startApp({ speech: TEST_SPEECH }), launchWithMicrophone(microphone)]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pairedChat(): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const app = await openPage(browser, PHONE);
  await pairThroughLink(app.page, (await stack.createPairing()).pair_url, "voice phone");
  await app.page.goto(`${stack.serverUrl}/#/new`);
  await app.page.getByRole("button", { name: "Dictate" }).waitFor();
  return { page: app.page, errors: app.errors, close: () => app.context.close() };
}

describe("dictation", () => {
  it("V40 Dictate records the microphone, the level meter moves, and the server's transcript lands in the composer", async () => {
    const { page, errors, close } = await pairedChat();
    stack.backend.scriptTranscripts("What is the weather in Lisbon?");
    const dictate = page.getByRole("button", { name: "Dictate" });
    await dictate.click();
    await expect.poll(() => dictate.getAttribute("aria-pressed")).toBe("true");
    const level = page.locator(".dictate .level");
    const scale = async () => Number(/scaleY\(([\d.]+)\)/.exec((await level.getAttribute("style")) ?? "")?.[1] ?? 0);
    await expect.poll(scale, { timeout: 15_000 }).toBeGreaterThan(0.2); // it hears the voice
    await expect.poll(scale, { timeout: 15_000 }).toBeLessThan(0.05); // and the silence after it
    await dictate.click();
    await expect
      .poll(() => page.getByRole("textbox", { name: "Message" }).inputValue())
      .toBe("What is the weather in Lisbon?");
    const sent = stack.backend.requests.filter((r) => r.path === "/v1/audio/transcriptions").at(-1)!;
    expect(sent.body).toMatchObject({ file: { type: "audio/webm" }, model: "whisper-1", response_format: "json" });
    expect((sent.body as { file: { size: number } }).file.size).toBeGreaterThan(2000);
    expect(await axeSerious(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});

describe("conversation mode", () => {
  it("V41 two hands-free rounds: each turn transcribed, sent, its reply said sentence by sentence, then it listens again", async () => {
    const { page, errors, close } = await pairedChat();
    await page.context().addInitScript(TEST_MICROPHONE);
    await page.context().addInitScript(STATE_TRAIL);
    await page.reload();
    const mode = page.getByRole("button", { name: "Conversation mode" });
    await mode.click();
    const state = page.locator(".conversation-state");
    const listening = () =>
      state
        .getByText("Listening…")
        .waitFor({ timeout: 30_000 })
        .catch(async (error: Error) => {
          const trail = await page.evaluate(() => (window as unknown as { __states: string[] }).__states);
          throw new Error(`${error.message}\nconversation states seen: ${trail.join(" → ")}`);
        });
    await listening();

    for (const [question, sentences] of [
      ["What is the weather in Lisbon?", ["It is sunny in Lisbon.", "About twenty degrees."]],
      ["And tomorrow?", ["Tomorrow brings rain."]],
    ] as const) {
      const answer = sentences.join(" ");
      stack.backend.scriptTranscripts(question);
      stack.backend.script(dialectStream("openai", { content: answer }));
      const asked = stack.backend.requests.length;
      await say(page, spoken(question, 0));
      await page.locator('article[data-role="assistant"]', { hasText: answer }).waitFor({ timeout: 30_000 });
      await listening();
      // One speech request a sentence. The next sentence is asked for while the one before it plays (docs/voice.md
      // "Read aloud"), so two requests are in flight at once and may reach the backend in either order: compared as
      // a set; the order they play in is the speaker's queue.
      const spokenPieces = () =>
        stack.backend.requests
          .slice(asked)
          .filter((r) => r.path === "/v1/audio/speech")
          .map((r) => (r.body as { input: string }).input)
          .sort();
      await expect.poll(spokenPieces, { timeout: 30_000 }).toEqual([...sentences].sort());
      await page.locator('article[data-role="user"]', { hasText: question }).waitFor();
    }
    expect(errors).toEqual([]);
    await close();
  });
});
