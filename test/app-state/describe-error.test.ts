// The one sentence a screen shows for a failure (app/src/state/errors.ts): a refusal says what was refused in words a
// person can act on, not a status code alone.
import { describe, expect, it } from "vitest";
import { NetworkError, ResponseError } from "../../client/index.ts";
import { describeError } from "../../app/src/state/errors.ts";

describe("describeError", () => {
  it("says a 413 is the message or its attachment being too large (a text-only send is refused so too)", () => {
    expect(describeError(new ResponseError(413, "payload_too_large", undefined, "body too large"))).toBe(
      "the message or its attachment is larger than the server accepts.",
    );
  });

  it("says a 409 is a reply still running, and other refusals with the server's words and status", () => {
    expect(describeError(new ResponseError(409, "request_in_progress", undefined, "busy"))).toBe(
      "a reply is still running; wait for it or stop it.",
    );
    expect(describeError(new ResponseError(400, "invalid_request", undefined, "body: content is empty"))).toBe(
      "body: content is empty (400).",
    );
  });

  it("tells a network failure on this device from a server that cannot be reached", () => {
    expect(describeError(new NetworkError("fetch failed"), "offline")).toBe(
      "this device is offline. Check its network connection.",
    );
    expect(describeError(new NetworkError("fetch failed"), "live")).toBe(
      "the server could not be reached. Check your connection.",
    );
  });
});
