// Regenerate, edit-and-resend and versions of a turn (docs/sessions.md "Versions", V1-V6) over a listening server
// against the scripted backend: the replaced branch stays as a version, indices refer to the shown path, and the
// shown path is exactly what the next request sends.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../client/wire/index.ts";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, waitForEvent } from "../runner/helpers.ts";
import { allEvents, call, expectStatus, newSession, PNG } from "./daily-support.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack();
});
afterEach(() => stack.close());

/** Starts a request through `path` with the backend answering `reply`, and waits for its request_completed. */
async function run(sid: string, path: string, body: Record<string, unknown>, reply: string): Promise<string> {
  stack.backend.script(dialectStream("openai", { content: reply }));
  const { request_id } = (await expectStatus(call(stack, "POST", `/sessions/${sid}${path}`, body), 202)).json;
  await waitForEvent(stack.server, request_id);
  return request_id as string;
}

async function shown(sid: string): Promise<Message[]> {
  return (await expectStatus(call(stack, "GET", `/sessions/${sid}/messages`), 200)).json.messages as Message[];
}

/** The shown path as "content version/versions" strings. */
async function path(sid: string): Promise<string[]> {
  return (await shown(sid)).map((m) => `${m.content}${m.versions ? ` ${m.version}/${m.versions}` : ""}`);
}

/** What the backend was sent last, as role: content. */
function lastSent(): string[] {
  return completionBodies(stack.backend)
    .at(-1)!
    .messages.map((m) => `${String(m.role)}: ${typeof m.content === "string" ? m.content : "[parts]"}`);
}

const version = (sid: string, index: number, v: number) =>
  call(stack, "POST", `/sessions/${sid}/messages/${index}/version`, { version: v });

describe("regenerate", () => {
  it("V1: keeps the replaced reply as version 1, sends the shown path, and switches back and forth", async () => {
    const sid = await newSession(stack);
    await run(sid, "/send", { content: "q1" }, "a1");
    await run(sid, "/regenerate", {}, "a2");
    expect(lastSent()).toEqual(["user: q1"]);
    expect(await path(sid)).toEqual(["q1 2/2", "a2 2/2"]);
    const [user] = await shown(sid);
    expect(user!.other_versions).toEqual([
      {
        version: 1,
        messages: [
          expect.objectContaining({ role: "user", content: "q1" }),
          expect.objectContaining({ content: "a1" }),
        ],
      },
    ]);

    const before = (await allEvents(stack)).length;
    const switched = (await expectStatus(version(sid, 1, 1), 200)).json.session;
    expect(switched.messages.map((m: Message) => `${m.content} ${m.version}/${m.versions}`)).toEqual([
      "q1 1/2",
      "a1 1/2",
    ]);
    const published = (await allEvents(stack)).slice(before);
    expect(published.map((e) => e.type)).toEqual(["session_updated", "checkpoint"]);
    // The version already shown: nothing changes, nothing is published.
    await expectStatus(version(sid, 0, 1), 200);
    expect((await allEvents(stack)).length).toBe(before + 2);

    await run(sid, "/send", { content: "q2" }, "a3");
    expect(lastSent()).toEqual(["user: q1", "assistant: a1", "user: q2"]);
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2", "a3"]);
    await run(sid, "/regenerate", {}, "a4");
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2 2/2", "a4 2/2"]);
    expect(lastSent()).toEqual(["user: q1", "assistant: a1", "user: q2"]);
  });

  it("V2: may pick another model for that one answer; the session's model stays", async () => {
    const sid = await newSession(stack);
    await run(sid, "/send", { content: "q" }, "a");
    await run(sid, "/regenerate", { model: "bigger-model", request_options: { temperature: 0.1 } }, "b");
    await run(sid, "/send", { content: "q2" }, "c");
    const bodies = completionBodies(stack.backend) as Array<Record<string, unknown>>;
    expect(bodies.map((b) => [b.model, b.temperature])).toEqual([
      ["scripted", undefined],
      ["bigger-model", 0.1],
      ["scripted", undefined],
    ]);
  });

  it("V3: retry after an error sends the attachments again and keeps no empty version", async () => {
    const sid = await newSession(stack);
    const dataUrl = `data:image/png;base64,${PNG.toString("base64")}`;
    stack.backend.script({ kind: "status", status: 500 });
    const failed = (
      await expectStatus(
        call(stack, "POST", `/sessions/${sid}/send`, {
          content: "what is this?",
          attachments: [{ type: "image_data", data_url: dataUrl }],
        }),
        202,
      )
    ).json.request_id;
    expect((await waitForEvent(stack.server, failed)).map((e) => e.type)).toContain("error");
    await run(sid, "/regenerate", {}, "a picture");
    const sent = completionBodies(stack.backend).at(-1)!.messages;
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).toContain(dataUrl);
    expect(await path(sid)).toEqual(["what is this?", "a picture"]);
  });
});

describe("edit and resend", () => {
  it("V4: the edited message starts version 2 of its turn; switching back restores the later turns and their own versions", async () => {
    const sid = await newSession(stack);
    await run(sid, "/send", { content: "q1" }, "a1");
    await run(sid, "/send", { content: "q2" }, "a2");
    await run(sid, "/regenerate", {}, "a2b");
    expect(await path(sid)).toEqual(["q1", "a1", "q2 2/2", "a2b 2/2"]);

    await run(sid, "/messages/0/resend", { content: "q1 edited" }, "b1");
    expect(lastSent()).toEqual(["user: q1 edited"]);
    expect(await path(sid)).toEqual(["q1 edited 2/2", "b1 2/2"]);

    await expectStatus(version(sid, 1, 1), 200);
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2 2/2", "a2b 2/2"]);
    await expectStatus(version(sid, 3, 1), 200);
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2 1/2", "a2 1/2"]);
    await expectStatus(version(sid, 0, 2), 200);
    expect(await path(sid)).toEqual(["q1 edited 2/2", "b1 2/2"]);
    await expectStatus(version(sid, 0, 1), 200);
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2 1/2", "a2 1/2"]);

    await run(sid, "/send", { content: "q3" }, "a3");
    expect(lastSent()).toEqual(["user: q1", "assistant: a1", "user: q2", "assistant: a2", "user: q3"]);
    // A fork keeps the versions; the source's and the fork's are independent from then on.
    const fork = (await expectStatus(call(stack, "POST", `/sessions/${sid}/fork`, {}), 201)).json.session.id as string;
    await expectStatus(version(fork, 0, 2), 200);
    expect(await path(fork)).toEqual(["q1 edited 2/2", "b1 2/2"]);
    expect(await path(sid)).toEqual(["q1 1/2", "a1 1/2", "q2 1/2", "a2 1/2", "q3", "a3"]);
  });

  it("V5: deleting a turn's user message leaves no stale version marks on the replies that joined another turn", async () => {
    const sid = await newSession(stack);
    await run(sid, "/send", { content: "q1" }, "a1");
    await run(sid, "/regenerate", {}, "a1b");
    await expectStatus(call(stack, "DELETE", `/sessions/${sid}/messages`, { indices: [0] }), 200);
    expect(await shown(sid)).toEqual([expect.not.objectContaining({ version: expect.anything() })]);
  });
});

describe("refusals", () => {
  it("V6: 409 while a request runs; bad input 400 with paths; unknown session 404; a repeated client_request_id starts nothing", async () => {
    const sid = await newSession(stack);
    await expectStatus(call(stack, "POST", `/sessions/${sid}/regenerate`, {}), 400, "invalid_input");
    await run(sid, "/send", { content: "q1" }, "a1");
    await run(sid, "/regenerate", {}, "a2");

    stack.backend.script({
      kind: "stream",
      parts: [{ data: { choices: [{ index: 0, delta: { content: "x" } }] } }],
      pauseAfter: 1,
    });
    const running = (await expectStatus(call(stack, "POST", `/sessions/${sid}/send`, { content: "q2" }), 202)).json
      .request_id;
    const pause = await stack.backend.nextPause();
    for (const [p, body] of [
      ["/regenerate", {}],
      ["/messages/0/resend", { content: "x" }],
      ["/messages/0/version", { version: 1 }],
    ] as const) {
      const answer = await expectStatus(call(stack, "POST", `/sessions/${sid}${p}`, body), 409, "request_in_progress");
      expect(answer.json.error.details).toEqual({ request_id: running });
    }
    pause.resume();
    await waitForEvent(stack.server, running);

    for (const [p, body, status, code, at] of [
      ["/regenerate", { model: "" }, 400, "invalid_input", "body.model"],
      ["/regenerate", { colour: "red" }, 400, "invalid_input", "body"],
      ["/regenerate", { request_options: { messages: [] } }, 400, "invalid_input", "body.request_options"],
      ["/messages/1/resend", { content: "x" }, 400, "invalid_input", "params.index"],
      ["/messages/0/resend", { content: "  " }, 400, "invalid_input", "body.content"],
      ["/messages/0/resend", {}, 400, "invalid_input", "body.content"],
      ["/messages/99/resend", { content: "x" }, 404, "message_not_found", undefined],
      ["/messages/-1/resend", { content: "x" }, 400, "invalid_input", "params.index"],
      ["/messages/0/version", { version: 3 }, 400, "invalid_input", "body.version"],
      ["/messages/0/version", { version: 0 }, 400, "invalid_input", "body.version"],
      ["/messages/0/version", { version: "2" }, 400, "invalid_input", "body.version"],
      ["/messages/2/version", { version: 2 }, 400, "invalid_input", "body.version"],
      ["/messages/99/version", { version: 1 }, 404, "message_not_found", undefined],
    ] as const) {
      const answer = await expectStatus(call(stack, "POST", `/sessions/${sid}${p}`, body), status, code);
      if (at !== undefined) expect(answer.json.error.details[0].path, `${p} ${JSON.stringify(body)}`).toBe(at);
    }
    for (const [p, body] of [
      ["/regenerate", {}],
      ["/messages/0/resend", { content: "x" }],
      ["/messages/0/version", { version: 1 }],
    ] as const) {
      await expectStatus(call(stack, "POST", `/sessions/ghost${p}`, body), 404, "session_not_found");
    }

    stack.backend.script(dialectStream("openai", { content: "once" }));
    const first = (
      await expectStatus(call(stack, "POST", `/sessions/${sid}/regenerate`, { client_request_id: "tap-1" }), 202)
    ).json.request_id;
    const again = (
      await expectStatus(call(stack, "POST", `/sessions/${sid}/regenerate`, { client_request_id: "tap-1" }), 202)
    ).json.request_id;
    expect(again).toBe(first);
    await waitForEvent(stack.server, first);
    expect(await path(sid)).toEqual(["q1 2/2", "a2 2/2", "q2 2/2", "once 2/2"]);
  });
});
