// A model's reply is searchable once its request completes (the runner's final and checkpoint events feed the index).
import { afterEach, beforeEach, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, send, startRunnerServer, waitForEvent, type RunnerServer } from "../runner/helpers.ts";
import { listen } from "./support.ts";

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startRunnerServer(backend);
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

it("S11 finds the assistant's streamed reply and the user's sent message after the request", async () => {
  const api = await listen(server);
  const id = await createSession(server);
  backend.script(dialectStream("openai", { content: "Photosynthesis turns light into chemical energy." }));
  await waitForEvent(server, await send(server, id, { content: "explain chlorophyll" }));
  const reply = await api.call("GET", "/search?q=photosynth");
  expect(reply.json.results).toMatchObject([{ session_id: id, message_index: 1, highlights: [[0, 14]] }]);
  expect((await api.call("GET", "/search?q=chlorophyll")).json.results).toMatchObject([
    { session_id: id, message_index: 0 },
  ]);
});
