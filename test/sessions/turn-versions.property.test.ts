// docs/sessions.md "Versions" V7: the flat shown path with hidden branches behaves exactly like a message tree (as
// ChatGPT keeps it: each turn's versions are siblings, each remembers which of its children is shown). For random
// sequences of sends, regenerates, edits and version switches, the shown path, and every message's version and
// count, equal the tree's; switching never loses a branch.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../client/wire/index.ts";
import {
  branchTurn,
  normalizeTurns,
  showVersion,
  stampAppended,
  turnStart,
} from "../../server/sessions/turn-versions.ts";

/** The reference: a tree of turn versions, each with its user text, reply text and the versions of the next turn. */
interface Node {
  user: string;
  reply: string;
  next: Node[];
  shown: number;
}
interface Level {
  versions: Node[];
  shown: number;
}

/** The tree's shown path as "user v/n", "reply v/n" strings. */
function treePath(root: Level): string[] {
  const out: string[] = [];
  let versions = root.versions;
  let shown = root.shown;
  while (versions.length > 0) {
    const node = versions[shown]!;
    const mark = versions.length > 1 ? ` ${shown + 1}/${versions.length}` : "";
    out.push(`${node.user}${mark}`, `${node.reply}${mark}`);
    ({ next: versions, shown } = node);
  }
  return out;
}

/** The tree node list (and its holder) of the turn at `turn` along the shown path. */
function levelAt(root: Level, turn: number): { versions: Node[]; get: () => number; set: (v: number) => void } {
  let holder: { versions: Node[]; get: () => number; set: (v: number) => void } = {
    versions: root.versions,
    get: () => root.shown,
    set: (v) => (root.shown = v),
  };
  for (let t = 0; t < turn; t++) {
    const node = holder.versions[holder.get()]!;
    holder = { versions: node.next, get: () => node.shown, set: (v) => (node.shown = v) };
  }
  return holder;
}

const listPath = (messages: Message[]) =>
  messages.map((m) => `${m.content}${m.versions ? ` ${m.version}/${m.versions}` : ""}`);

type Op =
  | { kind: "send" }
  | { kind: "regenerate" }
  | { kind: "resend"; turn: number }
  | { kind: "switch"; turn: number; version: number; onReply: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: "send" as const }),
  fc.constant({ kind: "regenerate" as const }),
  fc.record({ kind: fc.constant("resend" as const), turn: fc.nat(6) }),
  fc.record({
    kind: fc.constant("switch" as const),
    turn: fc.nat(6),
    version: fc.integer({ min: 1, max: 4 }),
    onReply: fc.boolean(),
  }),
);

describe("turn versions against a message tree (V7)", () => {
  it("keeps the shown path, versions and counts of the tree for any sequence of operations", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const root: Level = { versions: [], shown: 0 };
        let messages: Message[] = [];
        let counter = 0;
        const text = (prefix: string) => `${prefix}${++counter}`;
        for (const op of ops) {
          const turns = messages.filter((m) => m.role === "user").length;
          if (op.kind === "send" || turns === 0) {
            const node: Node = { user: text("u"), reply: text("a"), next: [], shown: 0 };
            const level = levelAt(root, turns);
            level.versions.push(node);
            level.set(level.versions.length - 1);
            messages = [...messages, { role: "user", content: node.user }];
            messages = [...messages, ...stampAppended(messages, [{ role: "assistant", content: node.reply }])];
          } else if (op.kind === "regenerate" || op.kind === "resend") {
            const turn = op.kind === "regenerate" ? turns - 1 : op.turn % turns;
            const start = 2 * turn;
            const level = levelAt(root, turn);
            const old = level.versions[level.get()]!;
            const node: Node = {
              user: op.kind === "regenerate" ? old.user : text("e"),
              reply: text("r"),
              next: [],
              shown: 0,
            };
            level.versions.push(node);
            level.set(level.versions.length - 1);
            messages = branchTurn(messages, start, { role: "user", content: node.user }, true);
            messages = [...messages, ...stampAppended(messages, [{ role: "assistant", content: node.reply }])];
          } else {
            const turn = op.turn % turns;
            const index = 2 * turn + (op.onReply ? 1 : 0);
            const level = levelAt(root, turn);
            const next = showVersion(messages, turnStart(messages, index)!, op.version);
            if (op.version > level.versions.length) expect(next).toBeUndefined();
            else {
              level.set(op.version - 1);
              messages = next!;
            }
          }
          expect(listPath(messages)).toEqual(treePath(root));
          expect(normalizeTurns(messages)).toEqual(messages);
          // Each turn holds every other version exactly once, and nothing else.
          for (const user of messages.filter((m) => m.role === "user")) {
            const others = (user.other_versions ?? []).map((o) => o.version);
            const all = Array.from({ length: user.versions ?? 1 }, (_, i) => i + 1);
            expect(others).toEqual(all.filter((v) => v !== (user.version ?? 1)));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
