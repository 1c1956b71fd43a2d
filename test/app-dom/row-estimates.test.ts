// The transcript's row estimates (docs/app.md "Long chats", LC17): an unmeasured row is estimated at the height last
// measured for a row of its shape, and its estimate, once given, never changes (the rows above the reader stand at
// their estimates). No browser: the estimates alone, as the virtualizer asks them.
import { describe, expect, it } from "vitest";
import { RowEstimates } from "../../app/src/components/row-estimates.ts";
import { plainShape } from "../../app/src/components/message-sketch.tsx";

const row = (key: string, shape?: string) => ({ key, shape: shape === undefined ? undefined : () => shape });

describe("row estimates", () => {
  it("estimate a row at the height measured for its shape, fixed once given (LC17)", () => {
    const estimates = new RowEstimates(96);
    expect(estimates.estimate(row("m-0", "user p40"))).toBe(96);
    expect(estimates.estimate(row("m-1", "user p40"))).toBe(96);
    estimates.learn(row("m-0", "user p40"), 121);
    // A row asked for after its shape was measured comes in at that height; one asked before keeps its estimate.
    expect(estimates.estimate(row("m-2", "user p40"))).toBe(121);
    expect(estimates.estimate(row("m-1", "user p40"))).toBe(96);
    // Another shape, and a row without one (not a plain message), keep the first guess.
    expect(estimates.estimate(row("m-3", "assistant p40"))).toBe(96);
    expect(estimates.estimate(row("m-4"))).toBe(96);
    estimates.learn(row("m-4"), 300);
    expect(estimates.estimate(row("m-5"))).toBe(96);
    // A later measure of the shape is the estimate of the rows asked for after it.
    estimates.learn(row("m-2", "user p40"), 125);
    expect(estimates.estimate(row("m-6", "user p40"))).toBe(125);
    expect(estimates.estimate(row("m-2", "user p40"))).toBe(121);
    expect(estimates.estimate(undefined)).toBe(96);
  });

  it("learn a measure under the shape of the row as it is now, not the one its estimate was read for", () => {
    const estimates = new RowEstimates(96);
    estimates.learn(row("m-0", "user p40"), 100);
    expect(estimates.estimate(row("m-7", "assistant p80 last"))).toBe(96);
    // The place's message changed (a reply came after it: no longer the last): its measure is its new shape's.
    estimates.learn(row("m-7", "assistant p80"), 180);
    expect(estimates.estimate(row("m-8", "assistant p80"))).toBe(180);
    expect(estimates.estimate(row("m-9", "assistant p80 last"))).toBe(96);
  });

  it("give plain messages of one role and lines' lengths one shape, and any other message none", () => {
    const user = (content: string, metadata = {}) => ({ role: "user" as const, content, metadata });
    expect(plainShape(user("Two words\nand more"))).toBe(plainShape(user("Two sorts\nand ours")));
    expect(plainShape(user("Two words\nand more"))).not.toBe(plainShape(user("Two words and\nmore")));
    expect(plainShape(user("Two words"))).not.toBe(plainShape({ ...user("Two words"), role: "assistant" }));
    expect(plainShape(user("- one\n- two"))).not.toBe(plainShape(user("one\ntwo")));
    expect(plainShape(user("**Bold** words"))).toBeUndefined();
    expect(plainShape(user("Two words", { sender: "someone" }))).toBeUndefined();
    expect(plainShape(user(""))).toBeUndefined();
  });
});
