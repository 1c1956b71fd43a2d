// @vitest-environment happy-dom
// The voice controls' first-paint side (app/src/voice/lazy-voice.tsx; docs/voice.md, invariant 14): a control that
// renders while the voice chunk is still loading, and whose effect runs only after another control's import of it has
// ended, still shows once the chunk is there (it read the chunk as absent at its render and never asked again).
import { h, options, render } from "preact";
import { afterEach, beforeEach, expect, it, vi } from "vitest";

let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));
let imported = false;

vi.mock("../../app/src/voice/controls.tsx", async () => {
  imported = true;
  await gate;
  return {
    DictateButton: () => h("button", { "aria-label": "Dictate" }),
    ReadAloudButton: () => null,
    ConversationButton: () => null,
  };
});

const { Dictate } = await import("../../app/src/voice/lazy-voice.tsx");
const hosts: HTMLElement[] = [];
/** Preact's effects, held until the test runs them: the order of the race is the test's, not the timers'. */
const effects: Array<() => void> = [];
const runEffects = () => effects.splice(0).forEach((run) => run());

beforeEach(() => void (options.requestAnimationFrame = (flush) => void effects.push(flush)));
afterEach(() => {
  runEffects();
  options.requestAnimationFrame = undefined;
  hosts.splice(0).forEach((host) => (render(null, host), host.remove()));
});

function mount(): HTMLElement {
  const host = document.body.appendChild(document.createElement("div"));
  hosts.push(host);
  render(h(Dictate, { onText: () => undefined }), host);
  return host;
}

const dictateIn = (host: HTMLElement) => host.querySelector('[aria-label="Dictate"]');

it("shows a control that rendered before the chunk loaded and ran its effect after (invariant 14)", async () => {
  const first = mount();
  runEffects();
  await vi.waitFor(() => expect(imported).toBe(true));
  // The second control renders now, while the import is under way: its state says "no chunk". Its effect waits.
  const second = mount();
  // The chunk arrives, and the first control shows it, before the second control's effect runs.
  openGate();
  await import("../../app/src/voice/controls.tsx");
  await vi.waitFor(() => expect(dictateIn(first)).not.toBeNull());
  expect(dictateIn(second)).toBeNull();
  runEffects();
  await vi.waitFor(() => expect(dictateIn(second)).not.toBeNull());
});
