// A model's reply is searchable once its request completes (the runner's final and checkpoint events feed the index).
import { expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { createSession, send, useRunner, waitForEvent } from "../runner/helpers.ts";
import { listen } from "./support.ts";

// One scripted backend and one server per test (test/runner/helpers.ts useRunner).
const runner = useRunner({});

it("S11 finds the assistant's streamed reply and the user's sent message after the request", async () => {
  const api = await listen(runner.server);
  const id = await createSession(runner.server);
  runner.backend.script(dialectStream("openai", { content: "Photosynthesis turns light into chemical energy." }));
  await waitForEvent(runner.server, await send(runner.server, id, { content: "explain chlorophyll" }));
  const reply = await api.call("GET", "/search?q=photosynth");
  expect(reply.json.results).toMatchObject([{ session_id: id, message_index: 1, highlights: [[0, 14]] }]);
  expect((await api.call("GET", "/search?q=chlorophyll")).json.results).toMatchObject([
    { session_id: id, message_index: 0 },
  ]);
});
