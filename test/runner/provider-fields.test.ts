// The tool loop writes provider-specific fields back into the provider-native messages of the follow-up request,
// as it does reasoning: Gemini requires each tool call's extra_content.google.thought_signature on the next request.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { controls } from "./fixtures/controls.ts";
import {
  completionBodies,
  createSession,
  messagesOf,
  send,
  startRunnerServer,
  waitForEvent,
  type RunnerServer,
} from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer;

beforeEach(async () => {
  controls.reset();
  backend = await startScriptedBackend();
  server = await startRunnerServer(backend, { plugins: ["./test-tools.ts"] });
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

describe("provider-specific fields in the tool loop", () => {
  it("Gemini: the call's extra_content and the message's unknown fields go back on the next request, and are stored", async () => {
    const signature = { google: { thought_signature: "c2lnLW9zbG8=" } };
    backend.script(
      dialectStream("gemini", {
        tool_calls: [
          { id: "c1", name: "get_weather", arguments: '{"city":"Oslo"}', extra: { extra_content: signature } },
        ],
        message_fields: { provider_state: { turn: 1 } },
      }),
      dialectStream("gemini", { content: "Sunny." }),
    );
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "weather?" });
    await waitForEvent(server, rid);

    const bodies = completionBodies(backend);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        provider_state: { turn: 1 },
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
            extra_content: signature,
          },
        ],
      },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
    ]);
    const stored = (await messagesOf(server, sid))[1]!;
    expect(stored.metadata?.provider_fields).toEqual({ provider_state: { turn: 1 } });
    expect((stored.metadata?.tool_calls as Array<Record<string, unknown>>)[0]!.extra_content).toEqual(signature);
  });
});
