// Conversation mode (docs/voice.md "Conversation mode"), hands-free:
//
//   listening ──voice──► hearing ──1.2 s silence──► transcribing ──text──► waiting ──first sentence──► speaking
//       ▲                   ▲                            │ (blank)                                       │
//       └───────────────────┼────────────────────────────┘                        reply said ───────────┘
//                           └──────────── barge-in: 300 ms of voice over the reply, or a tap ───────────┘
//
// The microphone stays open the whole time, a new recording starting the moment a turn ends, so a person who talks
// over the reply is heard from their first word. Each reply is said sentence by sentence as it streams: the first
// sentence's audio is asked for as soon as that sentence is whole. Both sides land in the chat as normal messages.
// The screen is kept awake; hiding the page (a locked phone) ends the mode, and says so.
import type { AnyEvent, ChatClient, SpeechStatus } from "../../../client/index.ts";
import { openMicrophone, type Microphone, type Recorder } from "./recorder.ts";
import { ReplySpeech } from "./reply-speech.ts";
import { createSpeaker, type Speaker } from "./speaker.ts";
import { TurnDetector } from "./turn-detector.ts";

export type ConversationState = "off" | "listening" | "hearing" | "transcribing" | "waiting" | "speaking";

export interface ConversationDeps {
  client: ChatClient;
  status: SpeechStatus;
  /** Sends the text as the user's message in the open chat (creating it when new). */
  send(text: string): Promise<void>;
  /** The open chat's id, once it exists. */
  sessionId(): string | undefined;
  onState(state: ConversationState): void;
  /** Something went wrong or the mode ended by itself: said to the person. */
  onProblem(message: string): void;
}

export interface Conversation {
  start(): Promise<void>;
  /** A tap during playback: stop the reply and listen. */
  interrupt(): void;
  stop(): void;
}

export function createConversation(deps: ConversationDeps): Conversation {
  const detector = new TurnDetector();
  let state: ConversationState = "off";
  let microphone: Microphone | undefined;
  let recorder: Recorder | undefined;
  let speaker: Speaker | undefined;
  let following: (() => void) | undefined;
  let wakeLock: { release(): Promise<void> } | undefined;

  /** Read through a function: the state changes across awaits, which TypeScript's narrowing does not see. */
  const current = (): ConversationState => state;
  const set = (next: ConversationState) => {
    state = next;
    deps.onState(next);
  };

  /** Records the next turn (the microphone stays open between turns). */
  const listen = (): void => {
    detector.reset();
    // At the 120 s limit a turn being spoken ends; silence is just recorded afresh.
    recorder = microphone?.record(() => (state === "hearing" ? void endTurn() : (recorder?.cancel(), listen())));
  };

  const onLevel = (level: number, at: number) => {
    const signal = detector.feed(level, at, state === "speaking" ? (speaker?.level() ?? 0) : 0);
    if (signal === "voice_started" && (state === "listening" || state === "speaking")) set("hearing");
    else if (signal === "barge_in") interrupt();
    else if (signal === "turn_ended" && state === "hearing") void endTurn();
  };

  const endTurn = async () => {
    const finished = recorder;
    if (!finished || state === "off") return;
    performance.mark("voice:turn-ended");
    set("transcribing");
    listen(); // the next turn (or a barge-in) is recorded from now on
    const text = await finished
      .stop()
      .then((recording) => deps.client.transcribe(recording))
      .catch((error: unknown) => (deps.onProblem(`Not heard: ${messageOf(error)}`), ""));
    if (current() === "off") return;
    if (text.trim() === "") return set("listening");
    set("waiting");
    following = followReply();
    await deps.send(text).catch((error: unknown) => {
      following?.();
      deps.onProblem(`Not sent: ${messageOf(error)}`);
      if (current() !== "off") set("listening");
    });
  };

  /** Says the next reply of the open chat sentence by sentence as it streams; returns the unsubscribe. */
  const followReply = (): (() => void) => {
    let requestId: string | undefined;
    const speech = new ReplySpeech();
    const replySpeaker = createSpeaker(deps.client, deps.status.tts, (error) => deps.onProblem(messageOf(error)));
    speaker = replySpeaker;
    void replySpeaker.started.then(() => {
      performance.mark("voice:first-audio");
      if (speaker === replySpeaker && state === "waiting") set("speaking");
    });
    const off = deps.client.on("*", (event: AnyEvent) => {
      if (speaker !== replySpeaker) return;
      if (requestId === undefined) {
        // A new chat has no id until its first send returns, while its request may already have started.
        const chat = deps.sessionId();
        if (event.type === "request_started" && (chat === undefined || event.session_id === chat))
          requestId = event.request_id;
        return;
      }
      if (event.request_id !== requestId) return;
      if (event.type === "partial") {
        const content = (event as { message?: { content?: unknown } }).message?.content;
        for (const piece of speech.push(typeof content === "string" ? content : "")) replySpeaker.say(piece);
      } else if (event.type === "request_completed") {
        for (const piece of speech.end()) replySpeaker.say(piece);
        replySpeaker.end();
        off();
      }
    });
    void replySpeaker.done.then(() => {
      if (speaker !== replySpeaker || state === "off") return;
      speaker = undefined;
      detector.reset();
      set("listening");
    });
    return () => (off(), replySpeaker.stop());
  };

  const interrupt = () => {
    if (state !== "speaking" && state !== "waiting") return;
    following?.();
    following = undefined;
    speaker = undefined;
    set("hearing");
  };

  const onHidden = () => {
    if (document.hidden && state !== "off") {
      stop();
      deps.onProblem("Conversation mode ended: the screen was locked or the app went to the background.");
    }
  };

  const stop = () => {
    set("off");
    following?.();
    microphone?.close();
    microphone = undefined;
    recorder = undefined;
    speaker = undefined;
    document.removeEventListener("visibilitychange", onHidden);
    void wakeLock?.release().catch(() => undefined);
    wakeLock = undefined;
  };

  return {
    async start() {
      set("listening");
      document.addEventListener("visibilitychange", onHidden);
      const nav = navigator as Navigator & {
        wakeLock?: { request(type: "screen"): Promise<{ release(): Promise<void> }> };
      };
      wakeLock = await nav.wakeLock?.request("screen").catch(() => undefined);
      microphone = await openMicrophone({ wav: deps.status.input === "wav", onLevel }).catch((error: unknown) => {
        stop();
        throw error;
      });
      listen();
    },
    interrupt,
    stop,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
