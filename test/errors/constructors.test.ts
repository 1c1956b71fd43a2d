// The server's error constructors take only registered codes, and only those the registry answers with their
// kind's status: the @ts-expect-error lines below fail `npm run typecheck` the day a constructor accepts them.
import { describe, expect, it } from "vitest";
import { statusesOf } from "../../client/wire/errors.ts";
import {
  conflict,
  DomainError,
  internal,
  invalid,
  KIND_STATUS,
  notFound,
  unauthenticated,
  unprocessable,
} from "../../server/errors.ts";
import { CursorExpiredError } from "../../server/events/event-store.ts";
import { unauthorized } from "../../server/http/errors.ts";

describe("error constructors", () => {
  it("refuse an unregistered code, or a code of another status (typecheck)", () => {
    const refused = [
      // @ts-expect-error: not a registered code
      () => notFound("no_such_code", "x"),
      // @ts-expect-error: invalid_input is a 400, not a 404
      () => notFound("invalid_input", "x"),
      // @ts-expect-error: not a registered code
      () => unprocessable("teapot", "x"),
      // @ts-expect-error: action_failed is a 422, not a 401
      () => unauthenticated("action_failed", "x"),
      // @ts-expect-error: internal_error is a 500, not a 422
      () => unprocessable("internal_error", "x"),
    ];
    expect(refused).toHaveLength(5);
  });

  it("answer each code with a status the registry gives it", () => {
    const raised = [
      invalid("invalid_input", "x"),
      notFound("agent_not_found", "x"),
      conflict("agent_not_found", "x"),
      new CursorExpiredError("x"),
      unauthorized(),
      unprocessable("action_failed", "x"),
      internal("invalid_action_result", "x"),
      invalid("invalid_json", "x"),
    ];
    for (const error of raised) expect(statusesOf(error.code), error.code).toContain(KIND_STATUS[error.kind]);
    expect(new CursorExpiredError("x")).toBeInstanceOf(DomainError);
    expect(KIND_STATUS[unauthorized().kind]).toBe(401);
    expect(KIND_STATUS[unprocessable("action_failed", "x").kind]).toBe(422);
    expect(KIND_STATUS[internal("invalid_action_result", "x").kind]).toBe(500);
  });
});
