// What the server offers for speech (GET /speech), asked once per connection; a failure means "nothing", asked again
// next time, so a server that was down does not hide the controls for good.
import type { ChatClient, SpeechStatus } from "../../../client/index.ts";
import { useEffect, useState } from "preact/hooks";

export const NO_SPEECH: SpeechStatus = { stt: false, tts: false, voices: [], input: "any" };

const asked = new WeakMap<ChatClient, Promise<SpeechStatus>>();
/** The answers in hand: a control mounted after one came shows at once, not after a render without it. */
const answered = new WeakMap<ChatClient, SpeechStatus>();

export function speechStatus(client: ChatClient): Promise<SpeechStatus> {
  let status = asked.get(client);
  if (!status) {
    // Asked through a promise chain: a client without the method (an older library, a test's stand-in) is "nothing".
    status = Promise.resolve()
      .then(() => client.speechStatus())
      .then(
        (answer) => (answered.set(client, answer), answer),
        () => (asked.delete(client), NO_SPEECH),
      );
    asked.set(client, status);
  }
  return status;
}

/**
 * What the server offers for speech, for a control: undefined until the first answer. Every reply has a Read aloud
 * button; each mounted after the answer starts with it, so a chat's open does not render each reply's controls twice.
 */
export function useSpeechStatus(client: ChatClient | undefined): SpeechStatus | undefined {
  const [status, setStatus] = useState<SpeechStatus | undefined>(() => (client ? answered.get(client) : NO_SPEECH));
  useEffect(() => {
    if (!client) return setStatus(NO_SPEECH);
    let live = true;
    void speechStatus(client).then((next) => live && setStatus(next));
    return () => void (live = false);
  }, [client]);
  return status;
}

interface RecognitionLike {
  lang: string;
  interimResults: boolean;
  onresult: ((event: { results: ArrayLike<ArrayLike<{ transcript: string }>> }) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
}

/** The browser's own speech recognition (Chrome, Safari), where it has one. */
export function browserRecognition(): (new () => RecognitionLike) | undefined {
  const scope = globalThis as unknown as Record<string, (new () => RecognitionLike) | undefined>;
  return scope.SpeechRecognition ?? scope.webkitSpeechRecognition;
}
