// The lifecycle table is exactly the two tables of docs/notifications.md "States and transitions" (plus status-keeping content updates), and nothing else.
import { describe, expect, it } from "vitest";
import { notificationKindSchema, notificationStatusSchema } from "../../client/wire/notification.ts";
import { isTerminal, nextStatus, TRANSITIONS, type Move } from "../../server/notifications/lifecycle.ts";

const MOVES: Move[] = ["update", "dismiss", "resolve", "expire", "respond", "suspend", "cancel"];

describe("lifecycle table", () => {
  it("has exactly the documented ordinary state changes", () => {
    const changes = TRANSITIONS.filter((t) => t.kind === "notification").map((t) => `${t.from}->${t.to}`);
    expect(changes.sort()).toEqual(["pending->dismissed", "pending->expired", "pending->pending", "pending->resolved"]);
  });

  it("has exactly the documented six interaction state changes", () => {
    const changes = TRANSITIONS.filter((t) => t.kind === "interaction" && t.from !== t.to).map(
      (t) => `${t.from}->${t.to}`,
    );
    expect(changes.sort()).toEqual(
      [
        "pending_response->responded",
        "responded->resolved",
        "pending_response->suspended",
        "suspended->responded",
        "pending_response->cancelled",
        "pending_response->expired",
      ].sort(),
    );
  });

  it("lets nothing leave a terminal state and nothing dismiss an interaction", () => {
    for (const kind of notificationKindSchema.options) {
      for (const status of notificationStatusSchema.options) {
        for (const move of MOVES) {
          const to = nextStatus({ kind, status }, move);
          if (isTerminal(status)) expect(to, `${kind} ${status} ${move}`).toBeUndefined();
          if (kind === "interaction" && move === "dismiss") expect(to).toBeUndefined();
          if (to !== undefined) expect(TRANSITIONS).toContainEqual({ kind, from: status, move, to });
        }
      }
    }
  });

  it("treats dismissed, resolved, expired and cancelled as terminal, the rest as active", () => {
    expect(notificationStatusSchema.options.filter(isTerminal).sort()).toEqual([
      "cancelled",
      "dismissed",
      "expired",
      "resolved",
    ]);
  });
});
