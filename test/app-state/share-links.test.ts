// Share links in words and the shared view's states, without a page (docs/app.md "Share links", SL6-SL7): the lives
// offered (7 days first, as the server's default), a live link listed by when it was made and when it expires, the
// share-link refusals said plainly; a malformed link is "gone" without asking anyone, and an unreachable origin is a
// failure said as such, not "gone". The real 404 and a wrong key are test/app/share-links.test.ts's, over a server.
import { describe, expect, it } from "vitest";
import { DEFAULT_SHARE_LINK_SECONDS, ResponseError } from "../../client/index.ts";
import { DEFAULT_LINK_LIFE, describeLink, LINK_LIVES, shareLinkErrorText } from "../../app/src/people/share-links.ts";
import { openSharedChat } from "../../app/src/people/shared-chat.ts";

const NOW = Date.parse("2026-11-28T12:00:00Z");

describe("share links in words (SL6)", () => {
  it("offers 1, 7, 30 and 90 days, 7 first as the server's default", () => {
    expect(LINK_LIVES.map((life) => life.label)).toEqual(["1 day", "7 days", "30 days", "90 days"]);
    expect(LINK_LIVES.map((life) => life.seconds / 86_400)).toEqual([1, 7, 30, 90]);
    expect(DEFAULT_LINK_LIFE).toBe(DEFAULT_SHARE_LINK_SECONDS);
  });

  it("lists a live link by when it was made and when it expires", () => {
    const text = describeLink({ created_at: "2026-11-28T11:00:00Z", expires_at: "2026-11-29T12:00:00Z" }, NOW);
    expect(text).toBe("Made 1 hour ago · expires tomorrow");
  });

  it("says the share-link refusals plainly", () => {
    const refusal = (code: string, status: number) => new ResponseError(status, code, {}, "refused");
    expect(shareLinkErrorText(refusal("too_many_share_links", 409))).toBe(
      "This chat already has 20 live links: revoke one first.",
    );
    expect(shareLinkErrorText(refusal("share_snapshot_too_large", 413))).toMatch(/too large to share/);
    expect(shareLinkErrorText(refusal("share_access_denied", 403))).toMatch(/Only the chat's owner/);
    expect(shareLinkErrorText(refusal("share_link_unavailable", 503))).toMatch(/cannot be reached .* try again/);
  });
});

describe("the shared view's states (SL7)", () => {
  const asked: string[] = [];
  const env = (fetch: (url: string) => Promise<Response>) => ({
    location: { origin: "http://app.test" } as Location,
    fetch: (url: string) => (asked.push(url), fetch(url)),
  });

  it("takes a malformed link for a gone one without asking the server", async () => {
    const state = await openSharedChat(
      "not-a-link",
      env(async () => new Response("{}")),
    );
    expect(state).toEqual({ state: "gone" });
    expect(asked).toEqual([]);
  });

  it("asks the app's own origin, and says an unreachable one as a failure", async () => {
    const link = `${"A".repeat(22)}.${"B".repeat(43)}`;
    const state = await openSharedChat(
      link,
      env(async () => {
        throw new TypeError("Failed to fetch");
      }),
    );
    expect(state.state).toBe("failed");
    expect(asked).toEqual([`http://app.test/shared/${"A".repeat(22)}`]);
  });
});
