// PATCH /sessions/{id} archived, pinned and request_options, and GET /sessions?archived= (docs/sessions.md "Archive,
// pin, request options", A1-A4), over a listening server and a SQLite file.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, waitForEvent } from "../runner/helpers.ts";
import { allEvents, call, expectStatus, newSession } from "./daily-support.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack({
    providers: {
      default: {
        provider: "reference_compatible",
        model: "scripted",
        base_url: "http://127.0.0.1:9/v1",
        request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"] } },
      },
    },
  });
});
afterEach(() => stack.close());

const tick = () => (stack.server.clock.t += 1000);
const list = async (query = "") =>
  (await expectStatus(call(stack, "GET", `/sessions${query}`), 200)).json.sessions as Array<{
    id: string;
    archived: boolean;
    pinned: boolean;
  }>;
const patch = (sid: string, body: unknown) => call(stack, "PATCH", `/sessions/${sid}`, body);

describe("archive and pin", () => {
  it("A1: archived sessions leave the default list, ?archived=only lists them alone, include lists all; pinned come first", async () => {
    const oldest = await newSession(stack);
    tick();
    const middle = await newSession(stack);
    tick();
    const newest = await newSession(stack);
    tick();
    expect((await list()).map((s) => s.id)).toEqual([newest, middle, oldest]);

    const archived = (await expectStatus(patch(middle, { archived: true }), 200)).json.session;
    expect(archived).toMatchObject({ id: middle, archived: true });
    tick();
    // Pinning the oldest makes it the newest by activity too; pin a second one to see the order among the rest.
    await expectStatus(patch(oldest, { pinned: true }), 200);
    expect((await list()).map((s) => s.id)).toEqual([oldest, newest]);
    expect((await list()).map((s) => [s.pinned, s.archived])).toEqual([
      [true, false],
      [false, false],
    ]);
    expect((await list("?archived=only")).map((s) => s.id)).toEqual([middle]);
    expect((await list("?archived=include")).map((s) => s.id)).toEqual([oldest, middle, newest]);
    tick();
    await expectStatus(patch(newest, { title: "touched" }), 200);
    expect((await list()).map((s) => s.id)).toEqual([oldest, newest]);

    // false clears (stored as absence), and every change was published as session_updated with the saved session.
    tick();
    const restored = (await expectStatus(patch(middle, { archived: false }), 200)).json.session;
    expect(restored).not.toHaveProperty("archived");
    expect((await list()).map((s) => s.id)).toEqual([oldest, middle, newest]);
    const updates = (await allEvents(stack)).filter((e) => e.type === "session_updated");
    expect(
      updates.map((e) => [
        (e.session as { id: string }).id,
        (e.session as { archived?: boolean }).archived,
        (e.session as { pinned?: boolean }).pinned,
      ]),
    ).toEqual([
      [middle, true, undefined],
      [oldest, undefined, true],
      [newest, undefined, undefined],
      [middle, undefined, undefined],
    ]);
  });

  it("A2: an archived session is still readable and usable; its events still flow", async () => {
    const sid = await newSession(stack);
    await expectStatus(patch(sid, { archived: true }), 200);
    await expectStatus(call(stack, "GET", `/sessions/${sid}`), 200);
    await expectStatus(call(stack, "POST", `/sessions/${sid}/messages`, { role: "user", content: "still here" }), 201);
    const events = (await expectStatus(call(stack, "GET", `/events?session_id=${sid}&since_id=0`), 200)).json
      .events as Array<{ type: string }>;
    expect(events.map((e) => e.type)).toContain("message_appended");
  });

  it("A3: bad input is 400 with the zod paths, an unknown session 404; nothing is published", async () => {
    const sid = await newSession(stack);
    const before = (await allEvents(stack)).length;
    for (const [body, path] of [
      [{ archived: "yes" }, "body.archived"],
      [{ pinned: 1 }, "body.pinned"],
      [{ request_options: [1] }, "body.request_options"],
      [{ request_options: "fast" }, "body.request_options"],
      [{ request_options: { model: "other" } }, "body.request_options"],
      [{ request_options: { reasoning_effort: "extreme" } }, "body.request_options"],
    ] as const) {
      const answer = await expectStatus(patch(sid, body), 400, "invalid_input");
      expect(answer.json.error.details[0].path, JSON.stringify(body)).toBe(path);
    }
    for (const query of ["?archived=yes", "?archived=", "?colour=red"]) {
      const answer = await expectStatus(call(stack, "GET", `/sessions${query}`), 400, "invalid_input");
      expect(answer.json.error.details[0].path).toMatch(/^query/);
    }
    await expectStatus(patch("ghost", { pinned: true }), 404, "session_not_found");
    expect((await allEvents(stack)).length).toBe(before);
  });
});

describe("request options saved with the session", () => {
  it("A4: merged into every request under a send's own; null clears; a fork keeps them", async () => {
    await stack.close();
    stack = await startAppStack();
    const sid = await newSession(stack);
    const saved = (await expectStatus(patch(sid, { request_options: { temperature: 0.2, top_p: 0.9 } }), 200)).json
      .session;
    expect(saved.request_options).toEqual({ temperature: 0.2, top_p: 0.9 });
    const send = async (body: Record<string, unknown>) => {
      stack.backend.script(dialectStream("openai", { content: "ok" }));
      await waitForEvent(
        stack.server,
        (await expectStatus(call(stack, "POST", `/sessions/${sid}/send`, body), 202)).json.request_id,
      );
    };
    await send({ content: "one" });
    await send({ content: "two", request_options: { temperature: 0.7 } });
    const fork = (await expectStatus(call(stack, "POST", `/sessions/${sid}/fork`, {}), 201)).json.session;
    expect(fork.request_options).toEqual({ temperature: 0.2, top_p: 0.9 });
    await expectStatus(patch(sid, { request_options: null }), 200);
    await send({ content: "three" });
    const bodies = completionBodies(stack.backend) as Array<Record<string, unknown>>;
    expect(bodies.map((b) => [b.temperature, b.top_p])).toEqual([
      [0.2, 0.9],
      [0.7, 0.9],
      [undefined, undefined],
    ]);
    expect((await expectStatus(call(stack, "GET", `/sessions/${sid}`), 200)).json.session).not.toHaveProperty(
      "request_options",
    );
  });
});
