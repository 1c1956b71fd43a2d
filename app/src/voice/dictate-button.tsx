// "Dictate" in the composer (docs/voice.md "Dictation"): tap to record, tap to stop; the recording goes to the server's
// STT and its text lands in the composer to check and send. A level meter shows it hears something. Without server
// STT the browser's own recognition is used where it exists, and the button says so (some browsers send the audio to
// their vendor). Neither: no button.
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { microphoneProblem, openMicrophone, type Microphone, type Recorder } from "./recorder.ts";
import { browserRecognition, useSpeechStatus } from "./speech-status.ts";

type State = { kind: "idle" } | { kind: "recording" } | { kind: "transcribing" };

export function DictateButton({ onText, disabled }: { onText: (text: string) => void; disabled?: boolean }) {
  const { connection, env } = useStore();
  const client = connection.paired.value?.client;
  const status = useSpeechStatus(client);
  const [state, setState] = useState<State>({ kind: "idle" });
  const [problem, setProblem] = useState<string | undefined>();
  const [level, setLevel] = useState(0);
  /** The recording under way: the server's (a microphone and its recorder) or the browser's recognition. */
  const active = useRef<{ microphone: Microphone; recorder: Recorder } | { recognition: { stop(): void } }>();
  useEffect(
    () => () => {
      const current = active.current;
      if (current && "microphone" in current) current.microphone.close();
      else current?.recognition.stop();
    },
    [],
  );
  if (!status) return null;
  const Recognition = status.stt ? undefined : browserRecognition();
  if (!status.stt && !Recognition) return null;

  const finish = async (recording: { microphone: Microphone; recorder: Recorder }) => {
    setState({ kind: "transcribing" });
    try {
      const bytes = await recording.recorder.stop().finally(() => recording.microphone.close());
      const text = client ? await client.transcribe(bytes) : "";
      if (text) onText(text);
      else setProblem("Nothing was heard. Try again, closer to the microphone.");
    } catch (error) {
      setProblem(`Not transcribed: ${describeError(error)}`);
    } finally {
      active.current = undefined;
      setState({ kind: "idle" });
      setLevel(0);
    }
  };

  const start = async () => {
    setProblem(undefined);
    if (Recognition) return startBrowser(new Recognition());
    try {
      const microphone = await openMicrophone({ wav: status.input === "wav", onLevel: (value) => setLevel(value) });
      const recording = { microphone, recorder: microphone.record(() => void finish(recording)) };
      active.current = recording;
      setState({ kind: "recording" });
    } catch (error) {
      setProblem(microphoneProblem(error, env.isSecureContext));
    }
  };

  const startBrowser = (recognition: InstanceType<NonNullable<ReturnType<typeof browserRecognition>>>) => {
    recognition.lang = navigator.language;
    recognition.interimResults = false;
    recognition.onresult = (event) => {
      const text = Array.from(event.results, (result) => result[0]?.transcript ?? "")
        .join(" ")
        .trim();
      if (text) onText(text);
    };
    recognition.onerror = (event) =>
      setProblem(
        event.error === "not-allowed" ? microphoneProblem(new DOMException("", "NotAllowedError"), true) : event.error,
      );
    recognition.onend = () => ((active.current = undefined), setState({ kind: "idle" }));
    recognition.start();
    active.current = { recognition };
    setState({ kind: "recording" });
  };

  const recording = state.kind === "recording";
  // The name stays "Dictate" (aria-pressed says it is on), so a screen reader's user finds it to stop it too.
  const action = recording ? "Stop dictation" : "Dictate";
  const title = Recognition
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
        disabled={disabled || state.kind === "transcribing"}
        onClick={() => {
          const current = active.current;
          if (!recording) void start();
          else if (current && "microphone" in current) void finish(current);
          else current?.recognition.stop();
        }}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <rect x="9" y="3" width="6" height="11" rx="3" />
          <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
        </svg>
        {recording && (
          <span class="level" style={{ transform: `scaleY(${Math.min(1, level * 8)})` }} aria-hidden="true" />
        )}
      </button>
      {state.kind === "transcribing" && (
        <span class="small muted" role="status">
          Transcribing…
        </span>
      )}
      {problem && (
        <p class="composer-problem" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
