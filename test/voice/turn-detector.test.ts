// Turn taking by signal energy (docs/voice.md "Conversation mode"): readings with their times in, signals out.
import { describe, expect, it } from "vitest";
import { TurnDetector } from "../../app/src/voice/turn-detector.ts";

/** Feeds `level` every 20 ms from `from` to `to` (ms); the signals other than "none", with their times. */
function run(detector: TurnDetector, from: number, to: number, level: number, playback = 0) {
  const signals: Array<[number, string]> = [];
  for (let at = from; at < to; at += 20) {
    const signal = detector.feed(level, at, playback);
    if (signal !== "none") signals.push([at, signal]);
  }
  return signals;
}

describe("TurnDetector", () => {
  it("V30 a turn starts at the first voiced frame and ends 1.2 s after the last one, not before", () => {
    const detector = new TurnDetector();
    expect(run(detector, 0, 1000, 0.002)).toEqual([]);
    expect(run(detector, 1000, 2000, 0.2)).toEqual([[1000, "voice_started"]]);
    // a pause of a second inside the turn does not end it
    expect(run(detector, 2000, 3000, 0.002)).toEqual([]);
    expect(run(detector, 3000, 3500, 0.2)).toEqual([]);
    const end = run(detector, 3500, 6000, 0.002);
    expect(end).toEqual([[4680, "turn_ended"]]); // the last voiced frame was at 3480
  });

  it("V31 a steady noise floor is not speech: the threshold rises with it", () => {
    const detector = new TurnDetector();
    run(detector, 0, 20_000, 0.01);
    expect(detector.threshold).toBeGreaterThanOrEqual(0.015);
    expect(run(detector, 20_000, 30_000, 0.012)).toEqual([]);
  });

  it("V32 during playback only 300 ms of voice above the reply's echo residue is a barge-in; the residue is not", () => {
    const detector = new TurnDetector();
    expect(run(detector, 0, 2000, 0.025, 0.1)).toEqual([]); // what echo cancellation leaves of the reply
    expect(run(detector, 2000, 2200, 0.3, 0.1)).toEqual([]); // a cough: under 300 ms
    expect(run(detector, 2200, 2400, 0.002, 0.1)).toEqual([]);
    expect(run(detector, 2400, 3000, 0.3, 0.1)).toEqual([[2700, "barge_in"]]);
    // the barge-in is the start of a turn: it ends after 1.2 s of silence like any other
    expect(run(detector, 3000, 5000, 0.002)).toEqual([[4180, "turn_ended"]]); // last voice at 2980
  });

  it("V33 a stalled page is not silence: readings that stop for 1.5 s mid-turn do not end it", () => {
    const detector = new TurnDetector();
    expect(run(detector, 0, 1000, 0.2)).toEqual([[0, "voice_started"]]);
    // the page freezes for 1.5 s (no readings) and comes back in a pause between words, then the person goes on
    expect(run(detector, 2500, 2600, 0.002)).toEqual([]);
    expect(run(detector, 2600, 3000, 0.2)).toEqual([]);
    expect(run(detector, 3000, 6000, 0.002)).toEqual([[4180, "turn_ended"]]); // 1.2 s after the voice at 2980
  });

  it("V34 a barge-in is heard through the dips between syllables: 80 ms dips do not restart its 300 ms", () => {
    const detector = new TurnDetector();
    run(detector, 0, 1000, 0.025, 0.1);
    // syllables of 120 ms with 80 ms dips between them, as espeak-ng and people speak
    const signals: Array<[number, string]> = [];
    for (let at = 1000; at < 2000; at += 200)
      signals.push(...run(detector, at, at + 120, 0.3, 0.1), ...run(detector, at + 120, at + 200, 0.002, 0.1));
    expect(signals).toEqual([[1300, "barge_in"]]);
  });

  it("V35 a person already talking when the reply starts to play barges in after 300 ms of voice over it", () => {
    const detector = new TurnDetector();
    run(detector, 0, 1000, 0.002);
    expect(run(detector, 1000, 1500, 0.3)).toEqual([[1000, "voice_started"]]); // while the app thinks
    detector.playbackStarted();
    expect(run(detector, 1500, 2000, 0.3, 0.1)).toEqual([[1800, "barge_in"]]);
  });
});
