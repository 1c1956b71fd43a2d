// "Conversation mode" in the composer (docs/voice.md "Conversation mode"): one tap starts it, one more ends it; while it
// is on, a strip says what it is doing (listening, hearing, thinking, speaking) and a tap on it during the reply stops
// the reply and listens. Offered when the server transcribes (its STT); the reply is said by the server's TTS or the
// browser's voice.
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { createConversation, type Conversation, type ConversationState } from "./conversation.ts";
import { microphoneProblem } from "./recorder.ts";
import { useSpeechStatus } from "./speech-status.ts";

const SAID: Record<Exclude<ConversationState, "off">, string> = {
  listening: "Listening…",
  hearing: "Hearing you…",
  transcribing: "Got it…",
  waiting: "Thinking…",
  speaking: "Speaking: tap to interrupt",
};

export function ConversationButton({ send, disabled }: { send: (text: string) => Promise<void>; disabled?: boolean }) {
  const { connection, router, env } = useStore();
  const client = connection.paired.value?.client;
  const status = useSpeechStatus(client);
  const [state, setState] = useState<ConversationState>("off");
  const [problem, setProblem] = useState<string | undefined>();
  const conversation = useRef<Conversation | undefined>(undefined);
  const sendRef = useRef(send);
  sendRef.current = send;
  useEffect(() => () => conversation.current?.stop(), []);
  if (!client || !status?.stt) return null;

  const start = () => {
    setProblem(undefined);
    const next = createConversation({
      client,
      status,
      send: (text) => sendRef.current(text),
      sessionId: () => {
        const route = router.route.value;
        return route.name === "chat" ? route.session_id : undefined;
      },
      onState: setState,
      onProblem: setProblem,
    });
    conversation.current = next;
    next.start().catch((error: unknown) => {
      conversation.current = undefined;
      setProblem(error instanceof DOMException ? microphoneProblem(error, env.isSecureContext) : describeError(error));
    });
  };
  const stop = () => {
    conversation.current?.stop();
    conversation.current = undefined;
  };
  const on = state !== "off";
  return (
    <>
      <button
        type="button"
        class={`icon-button conversation${on ? " on" : ""}`}
        aria-label="Conversation mode"
        aria-pressed={on}
        title={on ? "End conversation mode" : "Conversation mode: talk hands-free"}
        disabled={disabled && !on}
        onClick={on ? stop : start}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M3 10v4M7 7v10M11 4v16M15 8v8M19 11v2" />
        </svg>
      </button>
      {on && (
        <button type="button" class="conversation-state" onClick={() => conversation.current?.interrupt()}>
          <span role="status">{SAID[state]}</span>
        </button>
      )}
      {problem && (
        <p class="composer-problem" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
