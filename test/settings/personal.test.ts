// A person's own settings and prompts (docs/settings.md "Personal"): instructions reach every chat after the agent's
// system prompt, a new chat starts with the default agent and model, and the prompt library is bounded.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_PROMPTS } from "../../client/wire/routes/personal.ts";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, send, waitForEvent } from "../runner/helpers.ts";
import { addMember, deviceToken, scriptedProvider, startLoggedServer, type LoggedServer } from "./support.ts";

let backend: ScriptedBackend;
let server: LoggedServer;

beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startLoggedServer({
    providers: { default: scriptedProvider(backend) },
    agents: {
      default: { provider_id: "default", system_prompt: "You are terse." },
      writer: { provider_id: "default" },
    },
  });
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

describe("personal settings", () => {
  it("adds the instructions to every chat, after the agent's system prompt", async () => {
    const token = deviceToken(server);
    const saved = await server.request({
      method: "PATCH",
      url: "/people/me/settings",
      token,
      payload: { instructions: "Answer in French." },
    });
    expect(saved.json).toEqual({ instructions: "Answer in French.", default_agent: null, default_model: null });
    backend.script(dialectStream("openai", { content: "Bonjour" }));
    const sessionId = await createSession(server);
    await waitForEvent(server, await send(server, sessionId, { content: "hello" }));
    const messages = (backend.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages[0]).toEqual({ role: "system", content: "You are terse.\n\nAnswer in French." });
  });

  it("starts a new chat with the default agent and model, and refuses an agent that is not there", async () => {
    await server.request({
      method: "PATCH",
      url: "/people/me/settings",
      payload: { default_agent: "writer", default_model: "big-model" },
    });
    const created = await server.request({ method: "POST", url: "/sessions", payload: {} });
    expect(created.json.session).toMatchObject({ agent_id: "writer", model: "big-model" });
    const named = await server.request({ method: "POST", url: "/sessions", payload: { agent_id: "default" } });
    expect(named.json.session.agent_id).toBe("default");
    const missing = await server.request({
      method: "PATCH",
      url: "/people/me/settings",
      payload: { default_agent: "ghost" },
    });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("agent_not_found");
  });
});

describe("the prompt library", () => {
  it("creates, lists by title, edits and deletes prompts", async () => {
    const token = deviceToken(server);
    const call = (method: string, url: string, payload?: unknown) =>
      server.request({ method: method as "GET", url, token, ...(payload ? { payload } : {}) });
    const made = await call("POST", "/prompts", { title: "Summarize", text: "Summarize this:" });
    expect(made.status, made.text).toBe(201);
    await call("POST", "/prompts", { title: "alpha", text: "A" });
    const listed = await call("GET", "/prompts");
    expect(listed.json.prompts.map((p: { title: string }) => p.title)).toEqual(["alpha", "Summarize"]);
    const id = made.json.prompt.id as string;
    const edited = await call("PATCH", `/prompts/${id}`, { text: "Summarize in three lines:" });
    expect(edited.json.prompt).toMatchObject({ id, title: "Summarize", text: "Summarize in three lines:" });
    expect((await call("DELETE", `/prompts/${id}`)).status).toBe(204);
    expect((await call("DELETE", `/prompts/${id}`)).json.error.code).toBe("prompt_not_found");
    expect((await call("PATCH", "/prompts/prm_nope", { title: "x" })).status).toBe(404);
  });

  it("keeps each person's library and settings their own: another's prompt id is 404 and untouched", async () => {
    const owner = deviceToken(server);
    const member = deviceToken(server, await addMember(server));
    const made = await server.request({
      method: "POST",
      url: "/prompts",
      token: owner,
      payload: { title: "Mine", text: "owner's" },
    });
    const id = made.json.prompt.id as string;
    expect((await server.request({ method: "GET", url: "/prompts", token: member })).json.prompts).toEqual([]);
    const edit = await server.request({
      method: "PATCH",
      url: `/prompts/${id}`,
      token: member,
      payload: { text: "x" },
    });
    expect(edit.status).toBe(404);
    expect((await server.request({ method: "DELETE", url: `/prompts/${id}`, token: member })).status).toBe(404);
    expect((await server.request({ method: "GET", url: "/prompts", token: owner })).json.prompts[0].text).toBe(
      "owner's",
    );
    await server.request({
      method: "PATCH",
      url: "/people/me/settings",
      token: member,
      payload: { instructions: "B" },
    });
    const own = await server.request({ method: "GET", url: "/people/me/settings", token: owner });
    expect(own.json.instructions).toBe("");
  });

  it("refuses an empty or huge prompt and more than the limit", async () => {
    const bad = [
      { title: "", text: "x" },
      { title: "t", text: "x".repeat(20_001) },
      { title: "t", text: "x", extra: true },
    ];
    for (const payload of bad)
      expect((await server.request({ method: "POST", url: "/prompts", payload })).status).toBe(400);
    const { personal } = server.runtime.ctx;
    const ownerId = server.runtime.ctx.personStore.actingAdmin().id;
    for (let i = 0; i < MAX_PROMPTS; i++) personal.createPrompt(ownerId, { title: `p${i}`, text: "x" });
    const over = await server.request({ method: "POST", url: "/prompts", payload: { title: "one more", text: "x" } });
    expect(over.status).toBe(409);
    expect(over.json.error.code).toBe("prompt_limit_reached");
  });
});
