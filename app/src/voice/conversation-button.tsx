// "Conversation mode" in the composer (docs/voice.md "Conversation mode"): one tap starts it, one more ends it; while it
// is on, a strip says what it is doing (listening, hearing, thinking, speaking) and a tap on it during the reply stops
// the reply and listens. Offered when the server transcribes (its STT); the reply is said by the server's TTS or the
// browser's voice. The mode outlives the composer it started in (a new chat's first send moves to the chat's own
// address, which draws a new composer) and ends when the person goes to another chat or screen.
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import type { Route } from "../state/router.ts";
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

/** The page's one conversation: which chat it belongs to, and the composer's latest send. */
interface Running {
  conversation: Conversation;
  chat: string | undefined;
  send: (text: string) => Promise<void>;
}

const running = signal<Running | undefined>(undefined);
const state = signal<ConversationState>("off");
const problem = signal<string | undefined>(undefined);

function chatOf(route: Route): string | undefined {
  return route.name === "chat" ? route.session_id : undefined;
}

function end(): void {
  running.value?.conversation.stop();
  running.value = undefined;
}

export function ConversationButton({ send, disabled }: { send: (text: string) => Promise<void>; disabled?: boolean }) {
  const { connection, router, env } = useStore();
  const client = connection.paired.value?.client;
  const status = useSpeechStatus(client);
  const [, rerender] = useState(0);
  const current = running.value;
  if (current) current.send = send; // the composer on screen now sends
  useEffect(() => {
    const off = [state.subscribe(() => rerender((n) => n + 1)), problem.subscribe(() => rerender((n) => n + 1))];
    return () => off.forEach((stop) => stop());
  }, []);
  useEffect(
    () =>
      router.route.subscribe((route) => {
        const active = running.value;
        if (!active) return;
        const chat = chatOf(route);
        if (active.chat === undefined && chat !== undefined)
          active.chat = chat; // the new chat got its address
        else if (route.name !== "new_chat" && chat !== active.chat) end(); // somewhere else: the mode ends
      }),
    [],
  );
  if (!client || !status?.stt) return null;

  const start = () => {
    problem.value = undefined;
    const conversation = createConversation({
      client,
      status,
      send: (text) => running.value?.send(text) ?? Promise.resolve(),
      sessionId: () => running.value?.chat,
      onState: (next) => (state.value = next),
      onProblem: (message) => (problem.value = message),
    });
    running.value = { conversation, chat: chatOf(router.route.value), send };
    conversation.start().catch((error: unknown) => {
      running.value = undefined;
      problem.value =
        error instanceof DOMException ? microphoneProblem(error, env.isSecureContext) : describeError(error);
    });
  };
  const on = state.value !== "off";
  return (
    <>
      <button
        type="button"
        class={`icon-button conversation${on ? " on" : ""}`}
        aria-label="Conversation mode"
        aria-pressed={on}
        title={on ? "End conversation mode" : "Conversation mode: talk hands-free"}
        disabled={disabled && !on}
        onClick={on ? end : start}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M3 10v4M7 7v10M11 4v16M15 8v8M19 11v2" />
        </svg>
      </button>
      {on && (
        <button type="button" class="conversation-state" onClick={() => running.value?.conversation.interrupt()}>
          <span role="status">{SAID[state.value as Exclude<ConversationState, "off">]}</span>
        </button>
      )}
      {problem.value && (
        <p class="composer-problem" role="alert">
          {problem.value}
        </p>
      )}
    </>
  );
}
