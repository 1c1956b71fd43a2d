// Application and session actions: registration through the plugin api, list and invoke routes, one-shot
// display/ui_effects results that are never stored as notifications.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { actionResponseSchema } from "../../server/actions/registry.ts";
import { setupPlugin } from "../support/plugins.ts";
import { rmSync } from "node:fs";
import type { InjectOptions } from "fastify";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { ADMIN_TOKEN, tempDir } from "../support/server.ts";

let runtime: Runtime;
let dataDir: string;
beforeEach(async () => {
  dataDir = tempDir();
  runtime = createRuntime({ config: parseConfig({}), dataDir, adminToken: ADMIN_TOKEN });
  await runtime.app.ready();
});
afterEach(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const server = {
  async request(options: InjectOptions) {
    const res = await runtime.app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return { status: res.statusCode, json: res.json() };
  },
};

async function withPlugin(): Promise<void> {
  const { ctx } = runtime;
  await setupPlugin(ctx, {
    name: "ops",
    setup(api) {
      api.actions.register({
        name: "refresh",
        scope: "application",
        description: "Reload everything",
        run: () => ({
          result: { ok: true },
          display: { title: "Refreshed" },
          ui_effects: { reload_sessions_list: true, custom: [1] },
        }),
      });
      api.actions.register({
        name: "rename",
        scope: "session",
        input: z.object({ title: z.string().min(1) }).strict(),
        run: (input, actx) => ({
          result: { title: (input as { title: string }).title, session: actx.session_id ?? null },
          display: { presentation: "banner" },
        }),
      });
      api.actions.register({
        name: "count",
        scope: "application",
        input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        run: (input) => ({ result: (input as { n: number }).n + 1 }),
      });
      api.actions.register({
        name: "explode",
        scope: "application",
        run: () => {
          throw new Error("kaboom");
        },
      });
      api.actions.register({
        name: "navigate",
        scope: "application",
        run: () => ({ ui_effects: { navigate_to_session_id: "s" } }),
      });
      api.actions.register({ name: "quiet", scope: "application", run: () => undefined });
    },
  });
}

const post = (url: string, payload: object = {}) => server.request({ method: "POST", url, payload });

describe("actions", () => {
  it("lists application and session actions with their input schemas", async () => {
    await withPlugin();
    const app = await server.request({ method: "GET", url: "/application/actions" });
    expect(app.json.actions.map((a: { name: string }) => a.name)).toEqual([
      "refresh",
      "count",
      "explode",
      "navigate",
      "quiet",
    ]);
    expect(app.json.actions[0]).toEqual({
      name: "refresh",
      scope: "application",
      plugin: "ops",
      description: "Reload everything",
    });
    expect(app.json.actions[1].input_schema).toMatchObject({ type: "object", required: ["n"] });
    const session = (await post("/sessions", {})).json.session.id as string;
    const listed = await server.request({ method: "GET", url: `/sessions/${session}/actions` });
    expect(listed.json.actions.map((a: { name: string }) => a.name)).toEqual(["rename"]);
    expect((await server.request({ method: "GET", url: "/sessions/nope/actions" })).status).toBe(404);
  });

  it("answers a one-shot result: display defaults to modal, ui_effects validated and unknown fields kept, nothing stored", async () => {
    await withPlugin();
    const res = await post("/application/actions/refresh");
    expect(res.status).toBe(200);
    expect(actionResponseSchema.parse(res.json)).toEqual({
      action: "refresh",
      scope: "application",
      ownership: "application",
      result: { ok: true },
      display: { title: "Refreshed", presentation: "modal" },
      ui_effects: { reload_sessions_list: true, custom: [1] },
    });
    expect((await post("/application/actions/quiet")).json).toEqual({
      action: "quiet",
      scope: "application",
      ownership: "application",
    });
    expect(
      (await server.request({ method: "GET", url: "/application/notifications?include_terminal=true" })).json,
    ).toEqual([]);
    const events = (await server.request({ method: "GET", url: "/events?since_id=0" })).json.events;
    expect(events).toEqual([]);
  });

  it("session actions validate input and answer with session ownership", async () => {
    await withPlugin();
    const session = (await post("/sessions", {})).json.session.id as string;
    const res = await post(`/sessions/${session}/actions/rename`, { input: { title: "Trip" } });
    expect(res.json).toEqual({
      action: "rename",
      scope: "session",
      ownership: "session",
      session_id: session,
      result: { title: "Trip", session },
      display: { presentation: "banner" },
    });
    const bad = await post(`/sessions/${session}/actions/rename`, { input: { title: "" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].path).toBe("body.title");
    expect((await post(`/sessions/nope/actions/rename`, { input: { title: "x" } })).status).toBe(404);
  });

  it("validates JSON-schema inputs, and maps unknown, failing and invalid-result actions", async () => {
    await withPlugin();
    expect((await post("/application/actions/count", { input: { n: 2 } })).json.result).toBe(3);
    expect((await post("/application/actions/count", { input: { n: "2" } })).status).toBe(400);
    const missing = await post("/application/actions/nope");
    expect([missing.status, missing.json.error.code]).toEqual([404, "action_not_found"]);
    expect((await post("/application/actions/rename", { input: { title: "x" } })).status).toBe(404);
    const failed = await post("/application/actions/explode");
    expect([failed.status, failed.json.error.code]).toEqual([422, "action_failed"]);
    const invalid = await post("/application/actions/navigate");
    expect([invalid.status, invalid.json.error.code]).toEqual([500, "invalid_action_result"]);
    expect(invalid.json.error.details[0].path).toBe("ui_effects.navigate_to_session_id");
    expect((await post("/application/actions/refresh", { extra: 1 })).status).toBe(400);
  });

  it("refuses a duplicate name in one scope and a malformed definition", async () => {
    await withPlugin();
    const { ctx } = runtime;
    await expect(
      setupPlugin(ctx, {
        name: "dup",
        setup: (api) => api.actions.register({ name: "refresh", scope: "application", run: () => undefined }),
      }),
    ).rejects.toThrow(/already registered/);
    await expect(
      setupPlugin(ctx, {
        name: "bad",
        setup: (api) => api.actions.register({ name: "has space", scope: "application", run: () => undefined }),
      }),
    ).rejects.toThrow();
  });
});
