// "Dictate" in the composer (docs/voice.md "Dictation"): tap to record, tap to stop; the recording goes to the server's
// STT and its text lands in the composer to check and send. A level meter shows it hears something. Without server
// STT the browser's own recognition is used where it exists, and the button says so (some browsers send the audio to
// their maker). Neither: no button. The behaviour is dictation.ts's; this is its view.
import { useEffect, useMemo, useRef } from "preact/hooks";
import { useStore } from "../state/store.ts";
import { createDictation } from "./dictation.ts";
import { browserRecognition, useSpeechStatus } from "./speech-status.ts";

export function DictateButton({ onText, disabled }: { onText: (text: string) => void; disabled?: boolean }) {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const status = useSpeechStatus(client);
  if (!status || (!status.stt && !browserRecognition())) return null;
  return <Dictate key={client ? "paired" : "none"} onText={onText} disabled={disabled} status={status} />;
}

function Dictate({
  onText,
  disabled,
  status,
}: {
  onText: (text: string) => void;
  disabled?: boolean | undefined;
  status: NonNullable<ReturnType<typeof useSpeechStatus>>;
}) {
  const { connection, env } = useStore();
  const client = connection.paired.value?.client;
  const latest = useRef(onText);
  latest.current = onText;
  const dictation = useMemo(
    () => createDictation({ client, status, secure: env.isSecureContext, onText: (text) => latest.current(text) }),
    [client, status],
  );
  useEffect(() => () => dictation.dispose(), [dictation]);
  const recording = dictation.state.value === "recording";
  // The name stays "Dictate" (aria-pressed says it is on), so a screen reader's user finds it to stop it too.
  const action = recording ? "Stop dictation" : "Dictate";
  const title = dictation.browser
    ? `${action} (the browser's own speech recognition: some browsers send the audio to their maker)`
    : action;
  return (
    <>
      <button
        type="button"
        class={`icon-button dictate${recording ? " recording" : ""}`}
        aria-label="Dictate"
        aria-pressed={recording}
        title={title}
        disabled={disabled || dictation.state.value === "transcribing"}
        onClick={() => dictation.toggle()}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <rect x="9" y="3" width="6" height="11" rx="3" />
          <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
        </svg>
        {recording && (
          <span
            class="level"
            style={{ transform: `scaleY(${Math.min(1, dictation.level.value * 8)})` }}
            aria-hidden="true"
          />
        )}
      </button>
      {dictation.state.value === "transcribing" && (
        <span class="small muted" role="status">
          Transcribing…
        </span>
      )}
      {dictation.problem.value && (
        <p class="composer-problem" role="alert">
          {dictation.problem.value}
        </p>
      )}
    </>
  );
}
