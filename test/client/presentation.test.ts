// Presentation defaults and normalization (docs/client.md "Notifications").
import { describe, expect, it } from "vitest";
import {
  actionResponseOwner,
  decidePresentation,
  type Origin,
  type Platform,
} from "../../client/notifications/presentation.ts";

const cases: Array<[string | undefined, Origin, Platform, string]> = [
  [undefined, "session", "mobile", "inline"],
  [undefined, "action_response", "mobile", "modal"],
  [undefined, "action_response", "desktop", "inline (normalized)"],
  [undefined, "application", "mobile", "banner"],
  ["modal", "session", "mobile", "modal"],
  ["modal", "session", "desktop", "inline (normalized)"],
  ["modal", "application", "desktop", "inline (normalized)"],
  ["banner", "session", "desktop", "banner"],
  ["inline", "application", "mobile", "not presented: inline_not_allowed"],
  ["toast", "session", "mobile", "not presented: unknown_presentation"],
  ["toast", "application", "desktop", "not presented: unknown_presentation"],
];

describe("presentation", () => {
  it.each(cases)("%s for %s on %s → %s", (requested, origin, platform, expected) => {
    const decision = decidePresentation(requested, origin, platform);
    const text = decision.presented
      ? `${decision.presentation}${decision.normalized ? " (normalized)" : ""}`
      : `not presented: ${decision.reason}`;
    expect(text).toBe(expected);
  });

  it("gives direct action responses session ownership when they carry a session_id", () => {
    expect(actionResponseOwner({ session_id: "s1" })).toEqual({ scope: "session", session_id: "s1" });
    expect(actionResponseOwner({})).toEqual({ scope: "application" });
  });
});
