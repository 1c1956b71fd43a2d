// An in-stream error that lands in the same network read as the last deltas: the interrupted reply the runner
// stores keeps all the text the backend sent before its error (issue 11, a recorded OpenRouter stream kept 7 of 42).
import { expect, it } from "vitest";
import { chunk, pieces } from "../../scripts/scripted-backend/index.ts";
import { createSession, messagesOf, send, useRunner, waitForEvent } from "./helpers.ts";

// One scripted backend and one server per test (helpers.ts useRunner).
const runner = useRunner({});

it("the interrupted reply keeps every delta parsed before the error of the same read", async () => {
  const text = "Here is the start of a reply that then fails";
  const parts = [
    ...pieces(text).map((piece) => ({ data: chunk({ content: piece }) })),
    { data: { error: { code: 502, message: "upstream went away" } } },
  ];
  runner.backend.script({ kind: "stream", parts, done: false, writeSize: 1 << 20 });
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "go" });
  await waitForEvent(runner.server, rid);
  const reply = (await messagesOf(runner.server, sid))[1]!;
  expect(reply.content).toBe(text);
  expect(reply.metadata).toMatchObject({ interrupted: true, interrupted_reason: "error" });
});
