// An import gives the event loop turns within one chat (docs/export.md "Import", invariant E9): on a clock that moves
// one millisecond each time it is read, so every step of work costs time, the loop runs between slices of at most
// SLICE_MS, hundreds of times while one conversation of 2,000 messages is checked and converted.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { systemClock, type Clock } from "../../server/clock.ts";
import { SLICE_MS } from "../../server/export/slices.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

let server: TestServer | undefined;
afterEach(() => server?.close());

/** A clock whose every reading is one millisecond later: work is measured in readings, not in real time. */
function steppingClock(): Clock & { readonly t: number } {
  let t = 1_700_000_000_000;
  return {
    get t() {
      return t;
    },
    now: () => t++,
    sleep: systemClock.sleep,
  };
}

function conversation(count: number): Record<string, unknown> {
  const mapping: Record<string, unknown> = { root: { id: "root", parent: null, children: ["m0"], message: null } };
  for (let n = 0; n < count; n++) {
    const role = n % 2 === 0 ? "user" : "assistant";
    mapping[`m${n}`] = {
      id: `m${n}`,
      parent: n === 0 ? "root" : `m${n - 1}`,
      children: n + 1 < count ? [`m${n + 1}`] : [],
      message: {
        id: `m${n}`,
        author: { role },
        create_time: n,
        content: { content_type: "text", parts: [`text ${n}`] },
      },
    };
  }
  return { title: "long", mapping, current_node: `m${count - 1}`, conversation_id: "long" };
}

it("E9 within one chat the event loop runs between slices of at most SLICE_MS of work", async () => {
  const clock = steppingClock();
  server = await startTestServer({}, { clock });
  const file = join(tempDir("import-slices-"), "one-chat.json");
  writeFileSync(file, JSON.stringify([conversation(2000)]));
  let done = false;
  const gaps: number[] = [];
  let last = clock.t;
  const turn = () => {
    gaps.push(clock.t - last);
    last = clock.t;
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  const summary = await server.runtime.ctx.importer.importFile(file);
  done = true;
  expect(summary.imported).toBe(1);
  // 2,000 nodes parsed, checked and converted, and 2,000 messages staged: hundreds of turns, not a few.
  expect(gaps.length).toBeGreaterThan(500);
  // A turn never waits for more than a slice's budget of readings (and the few a step itself makes).
  expect(Math.max(...gaps.slice(1, -1))).toBeLessThanOrEqual(SLICE_MS + 4);
});

it("E10 a chat's messages are written in slices, the loop running between them, and the chat is seen only whole", async () => {
  const clock = steppingClock();
  server = await startTestServer({}, { clock });
  const { db, sessions } = server.runtime.ctx;
  const file = join(tempDir("import-slices-"), "one-chat.json");
  writeFileSync(file, JSON.stringify([conversation(2000)]));
  const rows = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM session_messages");
  const written = new Set<number>();
  const seen: number[] = [];
  let done = false;
  const turn = () => {
    // A turn queued before the import ended may run after the test, once its server and database are closed.
    if (done) return;
    written.add(rows.get()!.n);
    // What any reader gets at this turn: no chat yet, or the chat with all its messages.
    for (const session of sessions.list()) seen.push(session.messages.length);
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  await server.runtime.ctx.importer.importFile(file);
  done = true;
  // Row counts seen between slices: the 2,000 rows went in over many slices, not in one transaction.
  expect(written.size).toBeGreaterThan(50);
  expect(Math.max(...written)).toBe(2000);
  expect(new Set(seen)).toEqual(new Set(seen.length > 0 ? [2000] : []));
  expect(sessions.list().map((session) => session.messages.length)).toEqual([2000]);
});
