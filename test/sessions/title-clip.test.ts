// The one cut of a title (clipTitle, client/wire/messages.ts): a derived title (sessionTitle) and a generated one
// (cleanTitle, server/runner/titles.ts) both stop at their length with an ellipsis, counting characters, not UTF-16
// units, so an emoji is never split.
import { describe, expect, it } from "vitest";
import { clipTitle, DERIVED_TITLE_LENGTH, sessionTitle } from "../../client/wire/messages.ts";
import { cleanTitle } from "../../server/runner/titles.ts";

describe("clipTitle", () => {
  it("keeps a text within the length and cuts a longer one to the length, the ellipsis last", () => {
    expect(clipTitle("short", 5)).toBe("short");
    expect(clipTitle("longer text", 8)).toBe("longer…");
    expect(clipTitle("🙂".repeat(10), 4)).toBe("🙂🙂🙂…");
  });

  it("is the cut of a derived title and of a generated one", () => {
    const derived = sessionTitle({ messages: [{ role: "user", content: `  Plan\n${"a trip ".repeat(40)}` }] as never });
    expect([...derived]).toHaveLength(DERIVED_TITLE_LENGTH);
    expect(derived.startsWith("Plan a trip a trip")).toBe(true);
    expect(derived.endsWith("…")).toBe(true);
    const generated = cleanTitle(`Title: "${"Lisbon ".repeat(30)}"`)!;
    expect([...generated].length).toBeLessThanOrEqual(80);
    expect(generated.endsWith("…")).toBe(true);
  });
});
