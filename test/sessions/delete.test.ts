// DELETE /sessions/{id} over a listening server and a SQLite file (docs/sessions.md "Delete", D1-D6): the running
// request ends first, session_deleted is published, every later read answers 404, the session's events keep their
// ids as tombstones, its content is in no table any more, and its attachments go unless a live fork still uses them.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, waitForEvent, waitUntil } from "../runner/helpers.ts";
import { allEvents, call, expectStatus, newSession, PNG, rowsHolding } from "./daily-support.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack();
});
afterEach(() => stack.close());

const ext = (sid: string, action: string) => `/sessions/${sid}/extensions/reference_compatible_attachments/${action}`;

async function storeImage(sid: string): Promise<string> {
  return (
    await expectStatus(call(stack, "POST", ext(sid, "store_attachment"), { data_base64: PNG.toString("base64") }), 201)
  ).json.asset_id as string;
}

async function sendAndWait(sid: string, body: Record<string, unknown>, reply: string): Promise<string> {
  stack.backend.script(dialectStream("openai", { content: reply }));
  const { request_id } = (await expectStatus(call(stack, "POST", `/sessions/${sid}/send`, body), 202)).json;
  await waitForEvent(stack.server, request_id);
  return request_id as string;
}

/** `file: needle` for every file under `dir` (recursively) whose bytes hold one of the needles. */
function filesHolding(dir: string, needles: Buffer[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = readFileSync(join(entry.parentPath, entry.name));
    for (const needle of needles)
      if (bytes.includes(needle)) found.push(`${entry.name}: ${needle.toString("hex", 0, 16)}`);
  }
  return found;
}

describe("DELETE /sessions/{id}", () => {
  it("D1-D3: 204, session_deleted, 404 on every later read, tombstones with their ids, no content left in any table", async () => {
    const sid = await newSession(stack);
    const keep = await newSession(stack);
    const asset = await storeImage(sid);
    await sendAndWait(
      sid,
      { content: "secret question alpha", attachments: [{ type: "asset", asset_id: asset }] },
      "secret answer omega",
    );
    await sendAndWait(keep, { content: "other chat stays" }, "other answer stays");
    const before = await allEvents(stack);
    const idsBefore = before.map((e) => e.event_id);
    expect(rowsHolding(stack, "secret answer omega").length).toBeGreaterThan(0);

    await expectStatus(call(stack, "DELETE", `/sessions/${sid}`), 204);

    for (const [method, path, body] of [
      ["GET", `/sessions/${sid}`],
      ["GET", `/sessions/${sid}/messages`],
      ["PATCH", `/sessions/${sid}`, { title: "x" }],
      ["POST", `/sessions/${sid}/send`, { content: "again" }],
      ["POST", `/sessions/${sid}/messages`, { role: "user", content: "x" }],
      ["POST", `/sessions/${sid}/fork`, {}],
      ["POST", `/sessions/${sid}/regenerate`, {}],
      ["POST", `/sessions/${sid}/messages/0/resend`, { content: "x" }],
      ["POST", `/sessions/${sid}/messages/0/version`, { version: 1 }],
      ["GET", `/sessions/${sid}/notifications`],
      ["GET", `/events?session_id=${sid}`],
      ["GET", `/events?session_id=${sid}&since_id=0`],
      ["DELETE", `/sessions/${sid}`],
    ] as const) {
      await expectStatus(call(stack, method, path, body), 404, "session_not_found");
    }
    await expectStatus(
      call(stack, "POST", ext(keep, "download_attachment"), { asset_id: asset }),
      404,
      "asset_not_found",
    );

    const after = await allEvents(stack);
    // Every id is still there (cursors stay valid); the deleted session's events are bodiless tombstones.
    // (Compaction may have hidden some of the session's partials before; as tombstones they are no partials any more.)
    expect(after.map((e) => e.event_id)).toEqual(expect.arrayContaining(idsBefore));
    const deleted = after.filter((e) => e.event_id > idsBefore.at(-1)!);
    expect(deleted.map((e) => e.type)).toEqual(["session_deleted"]);
    expect(deleted[0]).toMatchObject({ session_id: sid });
    const mine = before.filter((e) => e.session_id === sid).map((e) => e.event_id);
    for (const event of after.filter((e) => mine.includes(e.event_id)))
      expect(event).toEqual({ event_id: event.event_id, type: "tombstone" });
    const text = JSON.stringify(after);
    expect(text).not.toContain("secret question alpha");
    expect(text).not.toContain("secret answer omega");
    expect(text).toContain("other answer stays");

    for (const archived of ["", "?archived=include", "?archived=only"]) {
      const list = (await expectStatus(call(stack, "GET", `/sessions${archived}`), 200)).json.sessions as Array<{
        id: string;
      }>;
      expect(list.map((s) => s.id)).not.toContain(sid);
    }
    expect(rowsHolding(stack, "secret question alpha")).toEqual([]);
    expect(rowsHolding(stack, "secret answer omega")).toEqual([]);
    expect(rowsHolding(stack, "other answer stays").length).toBeGreaterThan(0);
    expect(existsSync(join(stack.server.dataDir, "assets", sid))).toBe(false);
    expect(stack.server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM assets WHERE id = ?").get(asset)).toEqual({
      n: 0,
    });
  });

  it("D8: a deleted long message is gone from the database file itself once the WAL is checkpointed", async () => {
    const sid = await newSession(stack);
    const keep = await newSession(stack);
    // Long enough to need overflow pages, which a plain delete would leave readable on the free list.
    await expectStatus(
      call(stack, "POST", `/sessions/${sid}/messages`, { role: "user", content: "zebra-secret-42 ".repeat(2000) }),
      201,
    );
    await expectStatus(
      call(stack, "POST", `/sessions/${keep}/messages`, { role: "user", content: "kept-text-77" }),
      201,
    );
    await expectStatus(call(stack, "DELETE", `/sessions/${sid}`), 204);
    stack.server.runtime.ctx.transactor.commitGroup();
    // Through the checkpointer, as the server does it: a TRUNCATE on the main connection would race the worker's own
    // timed checkpoint for SQLite's checkpoint lock and answer busy (docs/sessions.md "Delete").
    await stack.server.runtime.ctx.search.indexer.purged();
    expect(await stack.server.runtime.ctx.checkpoints.truncate()).toBe(true);
    const file = readFileSync(join(stack.server.dataDir, "server.sqlite"));
    // The long message lived on overflow pages, which the delete zeroes as it frees them. (Short texts can leave copies
    // in the unused space of pages that split earlier; only a VACUUM rewrites those: docs/sessions.md "Delete".)
    expect(file.includes("zebra-secret-42")).toBe(false);
    expect(file.includes("kept-text-77")).toBe(true);
  });

  it("D9: once DELETE has answered, no file of the data folder holds the chat's long or short message or its image", async () => {
    const sid = await newSession(stack);
    const keep = await newSession(stack);
    const long = "quagga-long-secret ".repeat(3000);
    const short = "okapi-short-secret-31";
    const image = Buffer.concat([PNG.subarray(0, 8), randomBytes(3000)]);
    const dataUrl = `data:image/png;base64,${image.toString("base64")}`;
    await sendAndWait(sid, { content: short, attachments: [{ type: "image_data", data_url: dataUrl }] }, "a picture");
    await expectStatus(call(stack, "POST", `/sessions/${sid}/messages`, { role: "user", content: long }), 201);
    await expectStatus(
      call(stack, "POST", `/sessions/${keep}/messages`, { role: "user", content: "kept-text-78" }),
      201,
    );
    const needles = [long.slice(0, 40), short, image.toString("base64").slice(40, 120)].map((t) => Buffer.from(t));
    expect(needles.map((needle) => filesHolding(stack.server.dataDir, [needle]))).not.toContainEqual([]);
    await expectStatus(call(stack, "DELETE", `/sessions/${sid}`), 204);
    expect(filesHolding(stack.server.dataDir, needles)).toEqual([]);
    // More writes and an idle checkpoint bring nothing back.
    await expectStatus(call(stack, "POST", `/sessions/${keep}/messages`, { role: "user", content: "later" }), 201);
    await stack.server.runtime.ctx.checkpoints.truncate();
    expect(filesHolding(stack.server.dataDir, needles)).toEqual([]);
    expect(filesHolding(stack.server.dataDir, [Buffer.from("kept-text-78")])).not.toEqual([]);
  });

  it("D10: a few moments after DELETE, no file of the data folder holds the words of the chat's messages (the search index merged)", async () => {
    const sid = await newSession(stack);
    const keep = await newSession(stack);
    const words = ["zqxjvokapiword", "wombatfjordtext", "quixoticpangolin"];
    await expectStatus(
      call(stack, "POST", `/sessions/${sid}/messages`, { role: "user", content: words.join(" ") }),
      201,
    );
    await expectStatus(call(stack, "POST", `/sessions/${keep}/messages`, { role: "user", content: "keptword99" }), 201);
    // Indexed: search finds them (every search catches the index up first), and the index's pages hold them.
    expect((await call(stack, "GET", "/search?q=wombatfjordtext")).json.results).toHaveLength(1);
    await stack.server.runtime.ctx.checkpoints.truncate();
    const needles = words.map((word) => Buffer.from(word));
    expect(filesHolding(stack.server.dataDir, needles)).not.toEqual([]);
    await expectStatus(call(stack, "DELETE", `/sessions/${sid}`), 204);
    await stack.server.runtime.ctx.search.indexer.purged();
    expect(filesHolding(stack.server.dataDir, needles)).toEqual([]);
    // The other chat's words are still indexed.
    expect((await call(stack, "GET", "/search?q=keptword99")).json.results).toHaveLength(1);
  });

  it("D4: cancels a running request first: request_cancelled and request_completed, then session_deleted", async () => {
    const sid = await newSession(stack);
    // What is published, in order, as it is published (the log itself holds tombstones afterwards).
    const events = stack.server.runtime.ctx.events;
    const published: string[] = [];
    const publish = events.publish.bind(events);
    events.publish = ((input, ref) => (published.push(input.type), publish(input, ref))) as typeof events.publish;
    stack.backend.script({
      kind: "stream",
      parts: [{ data: { choices: [{ index: 0, delta: { content: "half" } }] } }],
      pauseAfter: 1,
    });
    const { request_id } = (
      await expectStatus(call(stack, "POST", `/sessions/${sid}/send`, { content: "long one" }), 202)
    ).json;
    const pause = await stack.backend.nextPause();
    await waitUntil(stack.server, request_id, (events) => events.some((e) => e.type === "partial"));
    const deleting = call(stack, "DELETE", `/sessions/${sid}`);
    await expectStatus(deleting, 204);
    pause.destroy();
    expect(published.slice(published.indexOf("request_cancelled"))).toEqual([
      "request_cancelled",
      "request_completed",
      "session_deleted",
    ]);
    const types = (await allEvents(stack)).map((e) => e.type);
    expect(types[types.length - 1]).toBe("session_deleted");
    // The run's own events are tombstones now; the runner holds nothing of the session.
    expect(types.filter((t) => t === "request_completed")).toEqual([]);
    expect(stack.server.runtime.ctx.runner.activeRequest(sid)).toBeUndefined();
    expect(stack.server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM active_requests").get()).toEqual({ n: 0 });
    expect(rowsHolding(stack, "half")).toEqual([]);
  });

  it("D5: a fork keeps using its source's attachment after the source is deleted; deleting the fork removes it", async () => {
    const source = await newSession(stack);
    const asset = await storeImage(source);
    await sendAndWait(source, { content: "look", attachments: [{ type: "asset", asset_id: asset }] }, "a cat");
    const fork = (await expectStatus(call(stack, "POST", `/sessions/${source}/fork`, {}), 201)).json.session
      .id as string;
    await expectStatus(call(stack, "DELETE", `/sessions/${source}`), 204);
    expect(existsSync(join(stack.server.dataDir, "assets", source, asset))).toBe(true);

    await sendAndWait(fork, { content: "and now?" }, "still a cat");
    const lastBody = completionBodies(stack.backend).at(-1)!;
    expect(JSON.stringify(lastBody.messages)).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
    expect((await expectStatus(call(stack, "GET", `/sessions/${fork}/messages`), 200)).json.messages[0].content).toBe(
      "look",
    );

    await expectStatus(call(stack, "DELETE", `/sessions/${fork}`), 204);
    expect(existsSync(join(stack.server.dataDir, "assets", source))).toBe(false);
    expect(stack.server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
    expect(rowsHolding(stack, "a cat")).toEqual([]);
  });

  it("D6: a long-poll on the session is answered with session_deleted; bad input is refused", async () => {
    const sid = await newSession(stack);
    const since = stack.server.runtime.ctx.events.latestId;
    const poll = call(stack, "GET", `/events?session_id=${sid}&since_id=${since}&wait_ms=20000`);
    // The poll is waiting (registered with the commit signal) before the session goes.
    while (stack.server.runtime.ctx.events.commits.waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    await expectStatus(call(stack, "DELETE", `/sessions/${sid}`), 204);
    const answered = await expectStatus(poll, 200);
    expect(answered.json.events.map((e: { type: string }) => e.type)).toEqual(["session_deleted"]);
    await expectStatus(call(stack, "DELETE", `/sessions/ghost`), 404, "session_not_found");
    const other = await newSession(stack);
    const bad = await expectStatus(call(stack, "DELETE", `/sessions/${other}`, { force: true }), 400, "invalid_input");
    expect(bad.json.error.details[0].path).toMatch(/^body/);
    await expectStatus(call(stack, "GET", `/sessions/${other}`), 200);
  });
});
