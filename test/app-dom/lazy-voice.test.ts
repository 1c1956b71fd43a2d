// @vitest-environment happy-dom
// The voice controls' first-paint side (app/src/voice/lazy-voice.tsx; docs/voice.md, invariant 14): a control that
// renders while the voice chunk is still loading, and whose effect runs only after another control's import of it has
// ended, still shows once the chunk is there (it read the chunk as absent at its render and never asked again).
import { h, render } from "preact";
import { afterEach, expect, it, vi } from "vitest";

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

afterEach(() => hosts.splice(0).forEach((host) => (render(null, host), host.remove())));

function mount(): HTMLElement {
  const host = document.body.appendChild(document.createElement("div"));
  hosts.push(host);
  // Preact's own render, not a test library's act(): effects run after the paint, as in a page.
  render(h(Dictate, { onText: () => undefined }), host);
  return host;
}

it("shows a control that rendered before the chunk loaded and ran its effect after (invariant 14)", async () => {
  const first = mount();
  await vi.waitFor(() => expect(imported).toBe(true));
  // The second control renders now, while the import is under way: its state says "no chunk".
  const second = mount();
  // The chunk arrives before the second control's effect runs (effects wait for the next frame).
  openGate();
  await import("../../app/src/voice/controls.tsx");
  await vi.waitFor(() => expect(first.querySelector('[aria-label="Dictate"]')).not.toBeNull());
  await vi.waitFor(() => expect(second.querySelector('[aria-label="Dictate"]')).not.toBeNull());
});
