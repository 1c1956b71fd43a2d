// MCP servers (admin): each one's status, tools with their approval, restarts and last error; restart one, set a
// tool's approval, remove one, add a stdio or Streamable HTTP server. A command needs the admin token or the config
// file's allow_commands: the refusal says so (use-admin-settings.ts LOCKED_TEXT).
import { useEffect, useState } from "preact/hooks";
import type { McpServerReport } from "../../../client/index.ts";
import { useAdminSettings, type AdminSettings, type Record_ } from "./use-admin-settings.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { SecretField } from "./form-parts.tsx";

const MODES = ["auto", "always", "never"] as const;

export function McpSection() {
  const settings = useAdminSettings();
  const [servers, setServers] = useState<McpServerReport[] | undefined>();
  const reload = () => settings.run(async () => setServers(await settings.api().listMcpServers()));
  useEffect(reload, [settings.view?.revision]);
  const apply = async (patch: Record_) => (await settings.apply({ mcp_servers: patch })) && reload();
  return (
    <section class="stack" aria-label="MCP servers">
      <ErrorNotice problem={settings.problem} />
      {servers?.length === 0 && <p class="muted">No MCP server yet.</p>}
      <ul class="settings-list">
        {servers?.map((server) => (
          <li key={server.name} class="card stack">
            <div class="page-head">
              <h2>{server.name}</h2>
              <span class={`badge status-${server.status}`}>{server.status}</span>
            </div>
            <p class="muted">
              {server.transport} · {server.tool_count} tools · {server.restarts} restarts
            </p>
            {server.last_error && <p class="notice error">Last error: {server.last_error}</p>}
            {server.tools.length > 0 && (
              <table class="tool-table">
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Approval</th>
                  </tr>
                </thead>
                <tbody>
                  {server.tools.map((tool) => (
                    <tr key={tool.name}>
                      <td>{tool.tool}</td>
                      <td>
                        <select
                          aria-label={`Approval of ${tool.tool}`}
                          value={tool.approval_mode}
                          onChange={(e) =>
                            void apply({ [server.name]: { require_approval: { [tool.tool]: e.currentTarget.value } } })
                          }
                        >
                          {MODES.map((mode) => (
                            <option key={mode} value={mode}>
                              {mode}
                            </option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <div class="row">
              <button
                type="button"
                class="secondary"
                onClick={() => settings.run(async () => (await settings.api().restartMcpServer(server.name), reload()))}
              >
                Restart
              </button>
              <button type="button" class="ghost danger" onClick={() => void apply({ [server.name]: null })}>
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
      {settings.view && <AddServer settings={settings} onAdded={reload} />}
    </section>
  );
}

function AddServer({ settings, onAdded }: { settings: AdminSettings; onAdded: () => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"stdio" | "http">("http");
  const [target, setTarget] = useState("");
  const [secret, setSecret] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    const [command, ...args] = target.trim().split(/\s+/);
    const server: Record_ =
      kind === "http"
        ? { url: target.trim(), ...(secret ? { headers: { Authorization: `Bearer ${secret}` } } : {}) }
        : { command, args };
    if (await settings.apply({ mcp_servers: { [name.trim()]: server } })) {
      setName("");
      setTarget("");
      setSecret("");
      onAdded();
    }
  };
  return (
    <form class="card stack" onSubmit={(e) => void submit(e)} aria-label="Add an MCP server">
      <h2>Add an MCP server</h2>
      <label>
        Name
        <input
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          pattern="[A-Za-z0-9]+([_-][A-Za-z0-9]+)*"
          required
        />
      </label>
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "http")}>
          <option value="http">Streamable HTTP</option>
          <option value="stdio">Command (stdio)</option>
        </select>
      </label>
      <label>
        {kind === "http" ? "URL" : "Command and arguments"}
        <input value={target} onInput={(e) => setTarget(e.currentTarget.value)} required />
      </label>
      {kind === "http" && <SecretField label="Bearer token (optional)" value={secret} onInput={setSecret} />}
      <button type="submit" class="primary">
        Add
      </button>
    </form>
  );
}
