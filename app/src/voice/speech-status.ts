// What the server offers for speech (GET /speech), asked once per connection; a failure means "nothing", asked again
// next time, so a server that was down does not hide the controls for good.
import type { ChatClient, SpeechStatus } from "../../../client/index.ts";
import { useEffect, useState } from "preact/hooks";

export const NO_SPEECH: SpeechStatus = { stt: false, tts: false, voices: [], input: "any" };

const asked = new WeakMap<ChatClient, Promise<SpeechStatus>>();

export function speechStatus(client: ChatClient): Promise<SpeechStatus> {
  let status = asked.get(client);
  if (!status) {
    status = client.speechStatus().catch(() => (asked.delete(client), NO_SPEECH));
    asked.set(client, status);
  }
  return status;
}

export function useSpeechStatus(client: ChatClient | undefined): SpeechStatus | undefined {
  const [status, setStatus] = useState<SpeechStatus | undefined>();
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
