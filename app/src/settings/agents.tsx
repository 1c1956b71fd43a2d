// Agents (admin): name, provider and model, system prompt, tools (plugin tools, or an MCP server's as
// mcp__<server>__<tool> or mcp__<server>__*; their approval is set on the MCP server) and request options. Who may
// use each agent is shown, read from the people (their allowed agents are the one place it is set).
import { useEffect, useState } from "preact/hooks";
import type { Person } from "../../../client/index.ts";
import { section, useAdminSettings, type AdminSettings, type Record_ } from "./use-admin-settings.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { OptionList } from "../components/option-list.tsx";
import { SaveCancelRow } from "./form-parts.tsx";

interface Draft {
  id: string;
  provider_id: string;
  model: string;
  system_prompt: string;
  tools: string;
  request_options: string;
}

export function AgentsSection() {
  const settings = useAdminSettings();
  const agents = section(settings.view, "agents");
  const providers = Object.keys(section(settings.view, "providers"));
  const [draft, setDraft] = useState<Draft | undefined>();
  const usersOf = useAgentUsers(settings);
  const edit = (id: string, agent: Record_ | undefined) =>
    setDraft({
      id,
      provider_id: String(agent?.provider_id ?? providers[0] ?? ""),
      model: String(agent?.model ?? ""),
      system_prompt: String(agent?.system_prompt ?? ""),
      tools: ((agent?.tools as string[] | undefined) ?? []).join(", "),
      request_options: agent?.request_options ? JSON.stringify(agent.request_options, null, 2) : "",
    });
  return (
    <section class="stack" aria-label="Agents">
      <ErrorNotice problem={settings.problem} />
      <p class="muted">
        Who may use an agent is set on each person (their allowed agents), in one place; it is shown here.
      </p>
      <ul class="settings-list">
        {Object.entries(agents).map(([id, agent]) => (
          <li key={id} class="card stack">
            <div class="page-head">
              <h2>{id}</h2>
              <div class="row">
                <button type="button" class="secondary" onClick={() => edit(id, agent)}>
                  Edit
                </button>
                <button
                  type="button"
                  class="ghost danger"
                  onClick={() => void settings.apply({ agents: { [id]: null } })}
                >
                  Remove
                </button>
              </div>
            </div>
            <p class="muted">
              {String(agent.provider_id)} · {String(agent.model ?? "the provider's model")}
              {Array.isArray(agent.tools) && agent.tools.length > 0 ? ` · tools: ${agent.tools.join(", ")}` : ""}
            </p>
            {usersOf(id) !== undefined && <p class="agent-users">Used by: {usersOf(id)!.join(", ") || "nobody"}</p>}
          </li>
        ))}
      </ul>
      {draft ? (
        <AgentForm draft={draft} providers={providers} settings={settings} onDone={() => setDraft(undefined)} />
      ) : (
        <button type="button" class="primary" onClick={() => edit("", undefined)} disabled={!settings.view}>
          New agent
        </button>
      )}
    </section>
  );
}

/** The names of the live people who may use an agent (undefined until the people are read). */
function useAgentUsers(settings: AdminSettings): (agentId: string) => string[] | undefined {
  const [people, setPeople] = useState<Person[] | undefined>();
  useEffect(() => settings.run(async () => setPeople(await settings.api().listPeople())), []);
  return (agentId) =>
    people
      ?.filter((person) => person.removed_at === null)
      .filter((person) => person.agents === "*" || person.agents.includes(agentId))
      .map((person) => person.name);
}

function AgentForm(props: { draft: Draft; providers: string[]; settings: AdminSettings; onDone: () => void }) {
  const [draft, setDraft] = useState(props.draft);
  const [problem, setProblem] = useState<string | undefined>();
  const set = (key: keyof Draft) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [key]: e.currentTarget.value });
  const submit = async (event: Event) => {
    event.preventDefault();
    let options: unknown = null;
    try {
      options = draft.request_options.trim() ? JSON.parse(draft.request_options) : null;
    } catch {
      return setProblem('Request options must be a JSON object, e.g. {"temperature": 0.2}.');
    }
    const tools = draft.tools
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const agent = {
      provider_id: draft.provider_id,
      model: draft.model.trim() || null,
      system_prompt: draft.system_prompt.trim() || null,
      tools: tools.length > 0 ? tools : null,
      request_options: options,
    };
    if (await props.settings.apply({ agents: { [draft.id.trim()]: agent } })) props.onDone();
  };
  return (
    <form class="card stack" onSubmit={(e) => void submit(e)} aria-label="Agent">
      <label>
        Name
        <input value={draft.id} onInput={set("id")} required readOnly={props.draft.id !== ""} />
      </label>
      <label>
        Provider
        <select value={draft.provider_id} onChange={set("provider_id")}>
          <OptionList values={props.providers} />
        </select>
      </label>
      <label>
        Model
        <input value={draft.model} onInput={set("model")} placeholder="The provider's default" />
      </label>
      <label>
        System prompt
        <textarea rows={4} value={draft.system_prompt} onInput={set("system_prompt")} />
      </label>
      <label>
        Tools (comma-separated)
        <input value={draft.tools} onInput={set("tools")} placeholder="mcp__files__*, web_search" />
      </label>
      <label>
        Request options (JSON)
        <textarea
          rows={3}
          value={draft.request_options}
          onInput={set("request_options")}
          placeholder='{"temperature": 0.2}'
        />
      </label>
      <ErrorNotice problem={problem} />
      <SaveCancelRow saveLabel="Save agent" onCancel={props.onDone} />
    </form>
  );
}
