// Settings that start and stop things (docs/settings.md): an MCP server added in settings starts and its tools reach
// the agent naming them, removing it ends its process; what runs code is locked without the admin token; the
// Connections test lists a backend's models and says why it failed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { alive, filesystemServer, scriptCalls, toolResults } from "../mcp/helpers.ts";
import { createSession, send, waitForEvent } from "../runner/helpers.ts";
import { patchSettings, scriptedProvider, useLoggedServers, type LoggedServer } from "./support.ts";

let backend: ScriptedBackend;

beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
});
const start = useLoggedServers();

describe("MCP servers in settings", () => {
  it("starts one added by a patch, gives its tools to the agent naming them, and stops it when removed", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    const fs = filesystemServer();
    const added = await patchSettings(server, {
      mcp_servers: { files: fs.config },
      agents: { default: { provider_id: "default", tools: ["mcp__files__*"] } },
    });
    expect(added.status, added.text).toBe(200);
    const report = await server.request({ method: "GET", url: "/mcp" });
    expect(report.json.servers[0]).toMatchObject({ name: "files", status: "ready" });
    const agents = await server.request({ method: "GET", url: "/agents" });
    const tools = (agents.json.agents[0].tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools).toContain("mcp__files__list_allowed_directories");

    scriptCalls(backend, [{ id: "c1", name: "mcp__files__list_allowed_directories", args: {} }]);
    const sessionId = await createSession(server);
    const events = await waitForEvent(server, await send(server, sessionId, { content: "where?" }));
    expect(toolResults(events)[0]!.content).toContain(fs.dir);

    const pid = server.runtime.ctx.mcp.connection("files")!.pid!;
    expect(alive(pid)).toBe(true);
    const removed = await patchSettings(server, {
      mcp_servers: { files: null },
      agents: { default: { tools: null } },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(alive(pid)).toBe(false);
    expect((await server.request({ method: "GET", url: "/mcp" })).json.servers).toEqual([]);
  });

  it("restarts one server on POST /mcp/{name}/restart, and 404s an unknown name", async () => {
    const fs = filesystemServer();
    const server = await start({
      providers: { default: scriptedProvider(backend) },
      mcp_servers: { files: fs.config },
    });
    const before = server.runtime.ctx.mcp.connection("files")!.pid!;
    const res = await server.request({ method: "POST", url: "/mcp/files/restart" });
    expect(res.status).toBe(204);
    expect(alive(before)).toBe(false);
    expect(server.runtime.ctx.mcp.connection("files")!.pid).not.toBe(before);
    expect((await server.request({ method: "POST", url: "/mcp/nope/restart" })).json.error.code).toBe(
      "mcp_server_not_found",
    );
  });

  it("locks a stdio command and plugins without the admin token, unless the config file allows commands", async () => {
    const fs = filesystemServer();
    const locked = await start({ providers: { default: scriptedProvider(backend) } });
    const { settings } = locked.runtime.ctx;
    const device = { adminToken: false, who: "device d1" };
    const refusal = await settings
      .patch(0, { mcp_servers: { files: fs.config }, plugins: ["./x.ts"] }, device)
      .catch((error: unknown) => error as { code: string; details: { paths: string[] } });
    expect(refusal).toMatchObject({ code: "settings_locked" });
    expect((refusal as { details: { paths: string[] } }).details.paths).toEqual(
      expect.arrayContaining(["plugins", "mcp_servers.files.command", "mcp_servers.files.args"]),
    );
    expect(settings.revision).toBe(0);
    // Not running code is not locked: an HTTP server, or the approval policy of a stdio one.
    const http = await settings.patch(0, { mcp_servers: { web: { url: "http://127.0.0.1:1/mcp" } } }, device);
    expect(http.revision).toBe(1);

    const open = await start({ providers: { default: scriptedProvider(backend) }, settings: { allow_commands: true } });
    const allowed = await open.runtime.ctx.settings.patch(0, { mcp_servers: { files: fs.config } }, device);
    expect(allowed.settings.mcp_servers).toHaveProperty("files");
    expect(open.lines.some((line) => line.includes("including what runs on this machine"))).toBe(true);
  });
});

describe("POST /providers/{id}/test", () => {
  it("lists the backend's models, completes one token only when asked, and gives the backend's own error", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    const listed = await server.request({ method: "POST", url: "/providers/default/test", payload: {} });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toMatchObject({ ok: true, models: expect.arrayContaining([expect.any(String)]) });
    expect(backend.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(0);

    backend.script({ kind: "json", body: { choices: [{ message: { role: "assistant", content: "OK" } }] } });
    const completed = await server.request({
      method: "POST",
      url: "/providers/default/test",
      payload: { complete: true },
    });
    expect(completed.json.ok, completed.text).toBe(true);
    expect(backend.requests.at(-1)!.body).toMatchObject({ max_tokens: 1, stream: false });

    backend.setModels({ kind: "json", status: 401, body: { error: { message: "Incorrect API key provided" } } });
    const refused = await server.request({ method: "POST", url: "/providers/default/test", payload: {} });
    expect(refused.json.ok).toBe(false);
    expect(refused.json.error).toContain("Incorrect API key provided");
    expect((await server.request({ method: "POST", url: "/providers/none/test", payload: {} })).status).toBe(404);
  });

  it("refuses a link-local provider the config file names, unless it allows link-local", async () => {
    const server = await start({
      providers: {
        default: scriptedProvider(backend, { base_url: "http://169.254.169.254/v1" }),
        mapped: scriptedProvider(backend, { base_url: "http://[::ffff:a9fe:a9fe]/v1" }),
      },
    });
    for (const id of ["default", "mapped"]) {
      const res = await server.request({ method: "POST", url: `/providers/${id}/test`, payload: {} });
      expect(res.status, id).toBe(400);
      expect(res.json.error.code).toBe("link_local_not_allowed");
    }
  });
});
