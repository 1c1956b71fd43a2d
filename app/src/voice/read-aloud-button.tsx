// "Read aloud" under a reply (docs/voice.md "Read aloud"): the reply made speakable, said a sentence at a time by the
// server's TTS (or the browser's voice without one); pressed again, it stops.
import { useEffect, useRef, useState } from "preact/hooks";
import { IconButton } from "../components/icon-button.tsx";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { spokenPieces } from "./reply-speech.ts";
import { createSpeaker, type Speaker } from "./speaker.ts";
import { useSpeechStatus } from "./speech-status.ts";
import { ErrorNotice } from "../components/error-notice.tsx";

export function ReadAloudButton({ content }: { content: string }) {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const status = useSpeechStatus(client);
  const [speaker, setSpeaker] = useState<Speaker | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const current = useRef<Speaker | undefined>(undefined);
  useEffect(() => () => current.current?.stop(), []);
  if (!status || (!status.tts && !globalThis.speechSynthesis)) return null;

  const start = () => {
    setProblem(undefined);
    const next = createSpeaker(client, status.tts, (error) => setProblem(`Not read aloud: ${describeError(error)}`));
    for (const piece of spokenPieces(content)) next.say(piece);
    next.end();
    current.current = next;
    setSpeaker(next);
    void next.done.then(() => current.current === next && (setSpeaker(undefined), (current.current = undefined)));
  };
  const stop = () => {
    current.current?.stop();
    current.current = undefined;
    setSpeaker(undefined);
  };
  return (
    <>
      <IconButton
        small
        label="Read aloud"
        title={speaker ? "Stop reading" : "Read aloud"}
        pressed={speaker !== undefined}
        onClick={speaker ? stop : start}
      >
        {speaker ? (
          <rect x="7" y="7" width="10" height="10" rx="2" />
        ) : (
          <path d="M4 9v6h4l5 4V5L8 9zM16 8a5 5 0 0 1 0 8M19 5a9 9 0 0 1 0 14" />
        )}
      </IconButton>
      <ErrorNotice problem={problem} class="small" />
    </>
  );
}
