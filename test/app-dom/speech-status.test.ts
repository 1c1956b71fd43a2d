// @vitest-environment happy-dom
// What the server offers for speech, as the voice controls read it (app/src/voice/speech-status.ts; docs/voice.md,
// invariant 15): asked once per connection, and a control mounted after the answer starts with it, so a chat's open
// does not render every reply's Read aloud control twice (once without the answer, once with it).
import { h, render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, expect, it, vi } from "vitest";
import type { ChatClient, SpeechStatus } from "../../client/index.ts";
import { useSpeechStatus } from "../../app/src/voice/speech-status.ts";

const hosts: HTMLElement[] = [];
afterEach(() => hosts.splice(0).forEach((host) => (render(null, host), host.remove())));

/** Mounts a control that records the status each of its renders saw; its effects and their renders run with it. */
async function mount(client: ChatClient): Promise<Array<SpeechStatus | undefined>> {
  const seen: Array<SpeechStatus | undefined> = [];
  const Control = () => (seen.push(useSpeechStatus(client)), null);
  const host = document.body.appendChild(document.createElement("div"));
  hosts.push(host);
  await act(async () => render(h(Control, {}), host));
  return seen;
}

it("asks once, and a control mounted after the answer renders with it from its first render (invariant 15)", async () => {
  const answer: SpeechStatus = { stt: true, tts: true, voices: ["alba"], input: "any" };
  const speechStatus = vi.fn(async () => answer);
  const client = { speechStatus } as unknown as ChatClient;
  const first = await mount(client);
  await vi.waitFor(() => expect(first).toEqual([undefined, answer]));

  // Mounted after the answer, its effects run: it rendered once, with the answer, and the server was not asked again.
  const later = await mount(client);
  expect(later).toEqual([answer]);
  expect(speechStatus).toHaveBeenCalledTimes(1);
});
