// Voice activity by signal energy (docs/voice.md "Conversation mode"), fed one level reading per audio frame with its
// time: a turn starts at the first voiced frame and ends 1.2 s after the last one; while a reply plays, 300 ms of voice
// above what echo cancellation leaves of it is a barge-in. The threshold follows the room: it sits well above the quietest recent
// level, so a fan or a street does not count as speech. Pure: the app's recorder feeds it, tests feed numbers.
export const END_OF_TURN_MS = 1200;
export const BARGE_IN_MS = 300;
/** A level (RMS of samples in -1..1) below this is never speech. */
const FLOOR = 0.015;
/**
 * How much of the playback's own level the microphone may still hear of it: echo cancellation takes the reply out of
 * the microphone's signal, leaving a residue well under a third of it; a voice above that is the person's.
 */
const ECHO_RESIDUE = 0.3;
/**
 * Readings come every animation frame (about 16 ms); a longer gap is the page stalling (a busy phone, a long task), not
 * the person falling silent, so the stalled time does not count toward the end of a turn.
 */
const STALL_MS = 250;
/**
 * Speech dips between syllables and words (espeak-ng's and people's alike, often 50 to 100 ms); a dip this short does
 * not break the 300 ms of voice a barge-in needs, or a person talking over the reply would rarely be heard.
 */
const DIP_MS = 150;

export type TurnSignal = "none" | "voice_started" | "turn_ended" | "barge_in";

export class TurnDetector {
  private noise = FLOOR;
  private voicedSince: number | undefined;
  private lastVoiceAt: number | undefined;
  private speaking = false;
  private lastReadingAt: number | undefined;

  constructor(private readonly options: { endOfTurnMs?: number; bargeInMs?: number } = {}) {}

  /** The level that counts as voice now. */
  get threshold(): number {
    return Math.max(FLOOR, this.noise * 3);
  }

  /**
   * One reading. `playbackLevel` is the level of what the app is playing (0 when silent): during playback, voice must
   * rise above it as well (echo cancellation removes most of it, not all).
   */
  feed(level: number, at: number, playbackLevel = 0): TurnSignal {
    this.discountStall(at);
    const voiced = level > this.threshold && level > playbackLevel * ECHO_RESIDUE;
    if (!voiced) this.noise = Math.min(this.noise * 0.995 + level * 0.005, 0.2);
    if (playbackLevel > 0) return this.bargeIn(voiced, at);
    if (voiced) {
      this.lastVoiceAt = at;
      if (!this.speaking) return ((this.speaking = true), "voice_started");
      return "none";
    }
    return this.speaking ? this.silence(at) : "none";
  }

  private silence(at: number): TurnSignal {
    if (at - this.lastVoiceAt! < (this.options.endOfTurnMs ?? END_OF_TURN_MS)) return "none";
    this.speaking = false;
    return "turn_ended";
  }

  private discountStall(at: number): void {
    const gap = this.lastReadingAt === undefined ? 0 : at - this.lastReadingAt;
    this.lastReadingAt = at;
    if (gap > STALL_MS && this.lastVoiceAt !== undefined) this.lastVoiceAt += gap;
  }

  /**
   * The reply starts to play: a turn begun before it (while the app was thinking) is heard afresh against it, so a
   * person still talking when it starts barges in after 300 ms of voice over it, as one who starts during it does.
   */
  playbackStarted(): void {
    this.speaking = false;
    this.voicedSince = undefined;
  }

  /** Forgets the current turn (a new one starts listening from silence). */
  reset(): void {
    this.speaking = false;
    this.voicedSince = undefined;
    this.lastVoiceAt = undefined;
  }

  private bargeIn(voiced: boolean, at: number): TurnSignal {
    if (!voiced) {
      if (this.lastVoiceAt === undefined || at - this.lastVoiceAt > DIP_MS) this.voicedSince = undefined;
      return this.speaking ? this.silence(at) : "none";
    }
    this.voicedSince ??= at;
    this.lastVoiceAt = at;
    if (this.speaking || at - this.voicedSince < (this.options.bargeInMs ?? BARGE_IN_MS)) return "none";
    this.speaking = true;
    return "barge_in";
  }
}
