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
  return new HandsFree(deps);
}

/** The mode's state and its moves; each move one method (the diagram above). */
class HandsFree implements Conversation {
  private readonly detector = new TurnDetector();
  private state: ConversationState = "off";
  private microphone: Microphone | undefined;
  private recorder: Recorder | undefined;
  private speaker: Speaker | undefined;
  private following: (() => void) | undefined;
  private awake: (() => void) | undefined;

  constructor(private readonly deps: ConversationDeps) {}

  async start(): Promise<void> {
    this.set("listening");
    this.awake = await keepAwake(() => {
      this.stop();
      this.deps.onProblem("Conversation mode ended: the screen was locked or the app went to the background.");
    });
    const onLevel = (level: number, at: number) => this.onLevel(level, at);
    this.microphone = await openMicrophone({ wav: this.deps.status.input === "wav", onLevel }).catch(
      (error: unknown) => {
        this.stop();
        throw error;
      },
    );
    this.listen();
  }

  interrupt(): void {
    if (this.state !== "speaking" && this.state !== "waiting") return;
    this.following?.();
    this.following = undefined;
    this.speaker = undefined;
    this.set("hearing");
  }

  stop(): void {
    this.set("off");
    this.following?.();
    this.microphone?.close();
    this.microphone = undefined;
    this.recorder = undefined;
    this.speaker = undefined;
    this.awake?.();
    this.awake = undefined;
  }

  /** Read through a method: the state changes across awaits, which TypeScript's narrowing does not see. */
  private current(): ConversationState {
    return this.state;
  }

  private set(next: ConversationState): void {
    this.state = next;
    this.deps.onState(next);
  }

  /** Records the next turn (the microphone stays open between turns). */
  private listen(): void {
    this.detector.reset();
    // At the 120 s limit a turn being spoken ends; silence is just recorded afresh.
    this.recorder = this.microphone?.record(() =>
      this.state === "hearing" ? void this.endTurn() : (this.recorder?.cancel(), this.listen()),
    );
  }

  private onLevel(level: number, at: number): void {
    const playing = this.state === "speaking" ? (this.speaker?.level() ?? 0) : 0;
    const signal = this.detector.feed(level, at, playing);
    if (signal === "voice_started" && (this.state === "listening" || this.state === "speaking")) this.set("hearing");
    else if (signal === "barge_in") this.interrupt();
    else if (signal === "turn_ended" && this.state === "hearing") void this.endTurn();
  }

  private async endTurn(): Promise<void> {
    const finished = this.recorder;
    if (!finished || this.state === "off") return;
    performance.mark("voice:turn-ended");
    this.set("transcribing");
    this.listen(); // the next turn (or a barge-in) is recorded from now on
    const text = await transcribed(this.deps, finished);
    if (this.current() === "off") return;
    if (text.trim() === "") return this.set("listening");
    this.set("waiting");
    this.following = this.followReply();
    await this.deps.send(text).catch((error: unknown) => {
      this.following?.();
      this.deps.onProblem(`Not sent: ${messageOf(error)}`);
      if (this.current() !== "off") this.set("listening");
    });
  }

  /** Says the next reply; when it has been said, listens again. */
  private followReply(): () => void {
    const reply = sayNextReply(this.deps, {
      started: () => {
        if (this.state !== "waiting") return;
        this.detector.playbackStarted(); // someone already talking is heard against the reply from now on
        this.set("speaking");
      },
      said: () => {
        if (this.speaker !== reply.speaker || this.state === "off") return;
        this.speaker = undefined;
        this.detector.reset();
        this.set("listening");
      },
    });
    this.speaker = reply.speaker;
    return reply.stop;
  }
}

/** The turn's text; "" when nothing could be heard (and said why). */
function transcribed(deps: ConversationDeps, recorder: Recorder): Promise<string> {
  return recorder
    .stop()
    .then((recording) => deps.client.transcribe(recording))
    .catch((error: unknown) => (deps.onProblem(`Not heard: ${messageOf(error)}`), ""));
}

/** Keeps the screen on (Screen Wake Lock) and calls `hidden` when the page hides; returns the undoing. */
async function keepAwake(hidden: () => void): Promise<() => void> {
  const onVisibility = () => document.hidden && hidden();
  document.addEventListener("visibilitychange", onVisibility);
  const nav = navigator as Navigator & {
    wakeLock?: { request(type: "screen"): Promise<{ release(): Promise<void> }> };
  };
  const lock = await nav.wakeLock?.request("screen").catch(() => undefined);
  return () => {
    document.removeEventListener("visibilitychange", onVisibility);
    void lock?.release().catch(() => undefined);
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Says the open chat's next reply sentence by sentence as it streams: the reply is the first request that starts in the
 * chat after the send (a new chat has no id until its first send returns, while its request may already have started).
 */
function sayNextReply(
  deps: ConversationDeps,
  hooks: { started(): void; said(): void },
): { speaker: Speaker; stop(): void } {
  let requestId: string | undefined;
  const speech = new ReplySpeech();
  const speaker = createSpeaker(deps.client, deps.status.tts, (error) => deps.onProblem(messageOf(error)));
  void speaker.started.then(() => {
    performance.mark("voice:first-audio");
    hooks.started();
  });
  const off = deps.client.on("*", (event: AnyEvent) => {
    if (requestId === undefined) {
      const chat = deps.sessionId();
      if (event.type === "request_started" && (chat === undefined || event.session_id === chat))
        requestId = event.request_id;
      return;
    }
    if (event.request_id !== requestId) return;
    if (event.type === "partial") {
      const content = (event as { message?: { content?: unknown } }).message?.content;
      for (const piece of speech.push(typeof content === "string" ? content : "")) speaker.say(piece);
    } else if (event.type === "request_completed") {
      for (const piece of speech.end()) speaker.say(piece);
      speaker.end();
      off();
    }
  });
  void speaker.done.then(hooks.said);
  return { speaker, stop: () => (off(), speaker.stop()) };
}
