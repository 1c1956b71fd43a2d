// Dictation's behaviour (docs/voice.md "Dictation"), apart from its button: record with the server's STT, or listen
// with the browser's own recognition where the server has none; the level while recording; why it failed.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { ChatClient, SpeechStatus } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { microphoneProblem, openMicrophone, type Microphone, type Recorder } from "./recorder.ts";
import { browserRecognition } from "./speech-status.ts";

export type DictationState = "idle" | "recording" | "transcribing";

export interface Dictation {
  readonly state: ReadonlySignal<DictationState>;
  readonly level: ReadonlySignal<number>;
  readonly problem: ReadonlySignal<string | undefined>;
  /** Whether the browser's recognition is used (the server has no STT). */
  readonly browser: boolean;
  /** Starts, or stops and transcribes. */
  toggle(): void;
  dispose(): void;
}

type Active = { microphone: Microphone; recorder: Recorder } | { recognition: { stop(): void } };

export interface DictationDeps {
  client: ChatClient | undefined;
  status: SpeechStatus;
  secure: boolean;
  onText(text: string): void;
}

export function createDictation(deps: DictationDeps): Dictation {
  const state = signal<DictationState>("idle");
  const level = signal(0);
  const problem = signal<string | undefined>(undefined);
  const Recognition = deps.status.stt ? undefined : browserRecognition();
  let active: Active | undefined;

  const finish = async (recording: { microphone: Microphone; recorder: Recorder }) => {
    state.value = "transcribing";
    try {
      const bytes = await recording.recorder.stop().finally(() => recording.microphone.close());
      const text = deps.client ? await deps.client.transcribe(bytes) : "";
      if (text) deps.onText(text);
      else problem.value = "Nothing was heard. Try again, closer to the microphone.";
    } catch (error) {
      problem.value = `Not transcribed: ${describeError(error)}`;
    } finally {
      active = undefined;
      state.value = "idle";
      level.value = 0;
    }
  };

  const record = async () => {
    try {
      const microphone = await openMicrophone({ wav: deps.status.input === "wav", onLevel: (v) => (level.value = v) });
      const recording = { microphone, recorder: microphone.record(() => void finish(recording)) };
      active = recording;
      state.value = "recording";
    } catch (error) {
      problem.value = microphoneProblem(error, deps.secure);
    }
  };

  const listen = (Engine: NonNullable<ReturnType<typeof browserRecognition>>) => {
    const recognition = new Engine();
    recognition.lang = navigator.language;
    recognition.interimResults = false;
    recognition.onresult = (event) => {
      const text = Array.from(event.results, (result) => result[0]?.transcript ?? "")
        .join(" ")
        .trim();
      if (text) deps.onText(text);
    };
    recognition.onerror = (event) =>
      (problem.value =
        event.error === "not-allowed" ? microphoneProblem(new DOMException("", "NotAllowedError"), true) : event.error);
    recognition.onend = () => ((active = undefined), (state.value = "idle"));
    recognition.start();
    active = { recognition };
    state.value = "recording";
  };

  const stop = () => {
    if (active && "microphone" in active) void finish(active);
    else active?.recognition.stop();
  };

  return {
    state,
    level,
    problem,
    browser: Recognition !== undefined,
    toggle() {
      if (state.value === "transcribing") return;
      if (state.value === "recording") return stop();
      problem.value = undefined;
      if (Recognition) listen(Recognition);
      else void record();
    },
    dispose() {
      if (active && "microphone" in active) active.microphone.close();
      else active?.recognition.stop();
      active = undefined;
    },
  };
}
