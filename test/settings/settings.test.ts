// PATCH /settings over HTTP (docs/settings.md): a provider added in settings answers a chat without a restart, a bad
// patch changes nothing, a stale revision is refused, secrets are "set" both ways and never leave the server, and
// DATA_DIR/settings.json wins over the config file at the next start.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, messagesOf, send, waitForEvent } from "../runner/helpers.ts";
import { tempDir } from "../support/server.ts";
import {
  addMember,
  deviceToken,
  patchSettings,
  readSettings,
  scriptedProvider,
  useLoggedServers,
  type LoggedServer,
} from "./support.ts";

const SECRET = "sk-live-0123456789abcdef";

let backend: ScriptedBackend;
let other: ScriptedBackend;

beforeEach(async () => {
  backend = await startScriptedBackend();
  other = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
  await other.close();
});
const start = useLoggedServers();

async function chat(server: LoggedServer, text: string): Promise<string> {
  const sessionId = await createSession(server);
  await waitForEvent(server, await send(server, sessionId, { content: text }));
  return (await messagesOf(server, sessionId)).at(-1)!.content;
}

describe("a provider added by PATCH /settings", () => {
  it("answers a chat at once, with its key, which no answer, log line or export shows", async () => {
    const server = await start();
    const res = await patchSettings(server, {
      providers: { hosted: scriptedProvider(backend, { api_key: SECRET }) },
      agents: { default: { provider_id: "hosted" } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.revision).toBe(1);
    expect(res.json.settings.providers.hosted.api_key).toBe("set");

    backend.script(dialectStream("openai", { content: "hello from settings" }));
    expect(await chat(server, "hi")).toBe("hello from settings");
    expect(backend.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);

    const answers = [
      res.text,
      (await server.request({ method: "GET", url: "/settings" })).text,
      (await server.request({ method: "GET", url: "/agents" })).text,
      (await server.request({ method: "GET", url: "/export" })).text,
      (await server.request({ method: "GET", url: "/providers/hosted/models" })).text,
    ];
    for (const text of answers) expect(text).not.toContain(SECRET);
    expect(server.lines.join("")).not.toContain(SECRET);
    expect(server.lines.some((line) => line.includes("settings changed"))).toBe(true);
  });

  it('keeps the stored key when a patch sends "set", and refuses "set" where nothing is stored', async () => {
    const server = await start({ providers: { hosted: scriptedProvider(backend, { api_key: SECRET }) } });
    const kept = await patchSettings(server, { providers: { hosted: { api_key: "set", timeout: 30 } } });
    expect(kept.status, kept.text).toBe(200);
    backend.script(dialectStream("openai", { content: "still keyed" }));
    expect(await chat(server, "hi")).toBe("still keyed");
    expect(backend.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);

    const placeholder = await patchSettings(server, {
      providers: { fresh: scriptedProvider(other, { api_key: "set" }) },
    });
    expect(placeholder.status).toBe(400);
    expect(placeholder.json.error.details).toContainEqual(expect.objectContaining({ path: "providers.fresh.api_key" }));
  });

  it("leaves a request already running on the settings it started with", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    backend.script({ ...dialectStream("openai", { content: "old backend" }), pauseAfter: 1 });
    const sessionId = await createSession(server);
    const requestId = await send(server, sessionId, { content: "long one" });
    const paused = await backend.nextPause();
    const moved = await patchSettings(server, { providers: { default: { base_url: other.url } } });
    expect(moved.status, moved.text).toBe(200);
    paused.resume();
    await waitForEvent(server, requestId);
    expect((await messagesOf(server, sessionId)).at(-1)!.content).toBe("old backend");
    other.script(dialectStream("openai", { content: "new backend" }));
    expect(await chat(server, "next")).toBe("new backend");
  });
});

describe("refusals", () => {
  it("refuses a bad patch whole with the path of each problem, and changes nothing", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    const before = await readSettings(server);
    const res = await patchSettings(server, {
      providers: { default: { timeout: 30 }, broken: { provider: "reference_compatible", base_url: "not a url" } },
      agents: { helper: { provider_id: "missing" } },
      events: { max_page_size: 5 },
      settings: { allow_commands: true },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_settings");
    const paths = (res.json.error.details as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["events", "settings", "providers.broken.base_url"]));
    expect(await readSettings(server)).toEqual(before);
    const agents = await patchSettings(server, { agents: { helper: { provider_id: "missing" } } });
    expect(agents.json.error.details).toEqual([
      { path: "agents.helper.provider_id", message: 'no provider "missing" in providers' },
    ]);
    expect(() => statSync(join(server.dataDir, "settings.json"))).toThrow();
  });

  it("answers a stale expected_revision with 409 and the current settings", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend, { api_key: SECRET }) } });
    expect((await patchSettings(server, { titles: { enabled: true } }, 0)).status).toBe(200);
    const stale = await patchSettings(server, { titles: { enabled: false } }, 0);
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("revision_mismatch");
    expect(stale.json.error.details.revision).toBe(1);
    expect(stale.json.error.details.settings.titles.enabled).toBe(true);
    expect(stale.text).not.toContain(SECRET);
  });

  it("refuses a link-local provider unless the config file allows it", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    // The IPv4-mapped form, which WHATWG URL rewrites to [::ffff:a9fe:a9fe] (test/settings/link-local.test.ts has
    // every other spelling).
    for (const base_url of ["http://169.254.169.254/v1", "http://[::ffff:169.254.169.254]/v1"]) {
      const res = await patchSettings(server, { providers: { metadata: scriptedProvider(backend, { base_url }) } });
      expect(res.status, base_url).toBe(400);
      expect(res.json.error.code).toBe("invalid_settings");
      expect(res.json.error.details[0].path).toBe("providers.metadata.base_url");
    }
    // The speech backends are dialled too: the same check for their base_url.
    const speech = await patchSettings(server, {
      speech: {
        stt: { base_url: "http://169.254.169.254/latest/", model: "whisper" },
        tts: { base_url: "http://[fe80::1]/v1", model: "voice" },
      },
    });
    expect(speech.status, speech.text).toBe(400);
    expect(speech.json.error.details.map((detail: { path: string }) => detail.path)).toEqual([
      "speech.stt.base_url",
      "speech.tts.base_url",
    ]);
    const allowed = await start({ settings: { allow_link_local: true } });
    const ok = await patchSettings(allowed, {
      providers: { metadata: scriptedProvider(backend, { base_url: "http://[fe80::1]/v1" }) },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses a provider URL that is not http or https, with its path (16)", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    for (const base_url of ["file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "ftp://127.0.0.1/v1"]) {
      const res = await patchSettings(server, { providers: { elsewhere: scriptedProvider(backend, { base_url }) } });
      expect(res.status, base_url).toBe(400);
      expect(res.json.error.code).toBe("invalid_settings");
      expect(res.json.error.details[0]).toMatchObject({
        path: "providers.elsewhere.base_url",
        message: "base_url must be an http: or https: URL",
      });
    }
  });

  it("refuses a patch that leaves no agent, with which no chat could start (17)", async () => {
    const server = await start({
      providers: { default: scriptedProvider(backend) },
      agents: { helper: { provider_id: "default" } },
    });
    // A merge patch: removing the last agent by name leaves an empty map.
    const res = await patchSettings(server, { agents: { helper: null } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe("invalid_settings");
    expect(res.json.error.details[0].path).toBe("agents");
    // Removing the map itself leaves the server's own default agent, so that stays allowed.
    const cleared = await patchSettings(server, { agents: null });
    expect(cleared.status, cleared.text).toBe(200);
    const listed = await server.request({ method: "GET", url: "/agents" });
    expect((listed.json as { agents: Array<{ agent_id: string }> }).agents.map((agent) => agent.agent_id)).toEqual([
      "default",
    ]);
  });

  it("is the admin role's: a member's device gets 403 admin_required, an admin's device reads and patches", async () => {
    const server = await start();
    const member = deviceToken(server, await addMember(server));
    expect((await server.request({ method: "GET", url: "/settings", token: member })).json.error.code).toBe(
      "admin_required",
    );
    const body = { expected_revision: 0, patch: { titles: { enabled: true } } };
    const refused = await server.request({ method: "PATCH", url: "/settings", token: member, payload: body });
    expect(refused.status).toBe(403);
    const admin = deviceToken(server);
    expect((await server.request({ method: "GET", url: "/settings", token: admin })).status).toBe(200);
    const patched = await server.request({ method: "PATCH", url: "/settings", token: admin, payload: body });
    expect(patched.status, patched.text).toBe(200);
  });

  it("locks a stdio command for an admin's device, says how to allow it, and audits what the admin token changes", async () => {
    const server = await start({ providers: { default: scriptedProvider(backend) } });
    const admin = deviceToken(server);
    const patch = { mcp_servers: { tool: { command: "/bin/true" } } };
    const locked = await server.request({
      method: "PATCH",
      url: "/settings",
      token: admin,
      payload: { expected_revision: 0, patch },
    });
    expect(locked.status).toBe(403);
    expect(locked.json.error.code).toBe("settings_locked");
    expect(locked.json.error.message).toContain("settings.allow_commands");
    expect((await readSettings(server)).revision).toBe(0);
    const byToken = await patchSettings(server, { providers: { default: { timeout: 20 } } });
    expect(byToken.status).toBe(200);
    const audit = await server.request({ method: "GET", url: "/audit" });
    expect(audit.json.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: "settings_changed", actor: "admin_token" })]),
    );
  });
});

describe("DATA_DIR/settings.json", () => {
  it("is 0600, wins over the config file at the next start, and a removal stays removed", async () => {
    const dataDir = tempDir();
    const config = {
      providers: { default: scriptedProvider(backend), spare: scriptedProvider(other) },
      titles: { enabled: false },
    };
    const first = await start(config, dataDir);
    await patchSettings(first, { providers: { spare: null, default: { timeout: 12 } } });
    await first.close(true);
    start.forget(first);
    expect(statSync(join(dataDir, "settings.json")).mode & 0o777).toBe(0o600);
    const second = await start(config, dataDir);
    const { revision, settings } = await readSettings(second);
    expect(revision).toBe(1);
    expect(settings.providers.spare).toBeUndefined();
    expect(settings.providers.default.timeout).toBe(12);
    expect(JSON.parse(readFileSync(join(dataDir, "settings.json"), "utf8"))).toEqual({
      providers: { spare: null, default: { timeout: 12 } },
    });
  });

  it("that no longer validates is ignored at start with one warning naming its path", async () => {
    const dataDir = tempDir();
    const path = join(dataDir, "settings.json");
    writeFileSync(path, JSON.stringify({ agents: { default: { provider_id: "gone" } } }));
    const server = await start({ providers: { default: scriptedProvider(backend) } }, dataDir);
    const warnings = server.lines.filter((line) => line.includes(path));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).level).toBe(40);
    backend.script(dialectStream("openai", { content: "config file in force" }));
    expect(await chat(server, "hi")).toBe("config file in force");
  });
});
