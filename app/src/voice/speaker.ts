// Says text a piece at a time (docs/voice.md "Read aloud"): each piece (a sentence, at most 400 characters) is asked of
// the server's TTS (`POST /audio/speech`, one relayed call each when the phone reaches only the bridge) while the piece
// before it plays, so speech flows without gaps, and no sooner, so a reply cut short was not synthesized whole; or, without server TTS, the browser's own speech synthesis. The level
// of what plays is readable, so the turn detector can tell a person talking over it from the reply's own echo.
import type { ChatClient } from "../../../client/index.ts";

export interface Speaker {
  /** Queues a piece; it plays after those before it. */
  say(piece: string): void;
  /** No more pieces will come: `done` resolves after the last one has played. */
  end(): void;
  /** Stops at once and drops the queue (a barge-in, the Stop button). */
  stop(): void;
  readonly done: Promise<void>;
  /** The level of what is playing now (RMS, 0..1); 0 when silent. */
  level(): number;
  /** Resolves when the first piece starts to sound. */
  readonly started: Promise<void>;
}

type Fetched = Promise<Blob | undefined>;

export function createSpeaker(
  client: ChatClient | undefined,
  serverTts: boolean,
  onError: (error: unknown) => void,
): Speaker {
  return serverTts && client ? serverSpeaker(client, onError) : browserSpeaker(onError);
}

/** A piece and, once asked for, its audio. Only the piece playing and the next are asked for at a time. */
interface Queued {
  piece: string;
  audio?: Fetched;
}

function serverSpeaker(client: ChatClient, onError: (error: unknown) => void): Speaker {
  const queue: Queued[] = [];
  const abort = new AbortController();
  let ended = false;
  let stopped = false;
  let current: HTMLAudioElement | undefined;
  /** A piece is being fetched or played: the next one to come is fetched at once, to play right after it. */
  let busy = false;
  let wake: (() => void) | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const meter = playbackMeter();
  const fetchPiece = (piece: string): Fetched =>
    client
      .speak(piece, { format: "mp3", signal: abort.signal })
      .then((audio) => new Blob([audio.bytes as Uint8Array<ArrayBuffer>], { type: audio.media_type }))
      .catch((error: unknown) => (stopped || onError(error), undefined));

  const play = async (blob: Blob): Promise<void> => {
    const url = URL.createObjectURL(blob);
    const audio = new Audio(url);
    current = audio;
    meter.attach(audio);
    try {
      await new Promise<void>((resolve) => {
        audio.onended = audio.onerror = audio.onpause = () => resolve();
        audio.play().then(markStarted, () => resolve());
      });
    } finally {
      URL.revokeObjectURL(url);
      current = undefined;
    }
  };

  const done = (async () => {
    for (;;) {
      if (stopped) return;
      const next = queue.shift();
      if (!next) {
        if (ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      busy = true;
      next.audio ??= fetchPiece(next.piece);
      if (queue[0]) queue[0].audio ??= fetchPiece(queue[0].piece); // fetched while this one plays
      const blob = await next.audio;
      if (blob && !stopped) await play(blob);
      busy = false;
    }
  })();

  return {
    say(piece) {
      if (stopped || ended) return;
      // A piece that comes while the one before it plays is fetched now, not when that one ends: no gap between them.
      queue.push(busy && queue.length === 0 ? { piece, audio: fetchPiece(piece) } : { piece });
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    stop() {
      stopped = true;
      abort.abort();
      queue.length = 0;
      current?.pause();
      wake?.();
      markStarted();
    },
    done: done.finally(() => meter.close()),
    started,
    level: () => (current ? meter.level() : 0),
  };
}

/** Reads the level of an <audio> as it plays, through an AudioContext (the element still plays as before). */
function playbackMeter(): { attach(audio: HTMLAudioElement): void; level(): number; close(): void } {
  let context: AudioContext | undefined;
  let analyser: AnalyserNode | undefined;
  const samples = new Float32Array(512);
  return {
    attach(audio) {
      try {
        context ??= new AudioContext();
        // A context made outside a tap starts suspended on phones, and the element routed through it would be silent.
        if (context.state === "suspended") void context.resume().catch(() => undefined);
        analyser ??= context.createAnalyser();
        analyser.fftSize = samples.length;
        const source = context.createMediaElementSource(audio);
        source.connect(analyser);
        analyser.connect(context.destination);
      } catch {
        // No Web Audio: the level stays unknown (0) and barge-in falls back to the detector's own threshold.
      }
    },
    level() {
      if (!analyser) return 0.05;
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      return Math.sqrt(sum / samples.length);
    },
    close: () => void context?.close().catch(() => undefined),
  };
}

function browserSpeaker(onError: (error: unknown) => void): Speaker {
  const synth = globalThis.speechSynthesis;
  let ended = false;
  let pending = 0;
  let finish!: () => void;
  let markStarted!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const settle = () => pending === 0 && ended && finish();
  return {
    say(piece) {
      if (!synth) return onError(new Error("this browser cannot speak"));
      const utterance = new SpeechSynthesisUtterance(piece);
      pending++;
      utterance.onstart = () => markStarted();
      utterance.onend = utterance.onerror = () => (pending--, settle());
      synth.speak(utterance);
    },
    end() {
      ended = true;
      settle();
    },
    stop() {
      synth?.cancel();
      pending = 0;
      ended = true;
      markStarted();
      finish();
    },
    done,
    started,
    level: () => (synth?.speaking ? 0.05 : 0),
  };
}
