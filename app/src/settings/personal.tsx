// Personal (everyone): custom instructions added to every chat of yours, the agent and model a new chat starts with,
// and the prompt library the composer opens with "/".
import { useEffect, useState } from "preact/hooks";
import type { AgentView, PersonalSettings } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { PromptLibrary } from "./prompt-library.tsx";
import { OptionList } from "../components/option-list.tsx";

export function PersonalSection() {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const [own, setOwn] = useState<PersonalSettings | undefined>();
  const [agents, setAgents] = useState<AgentView[]>([]);
  const [note, setNote] = useState<{ text: string; error: boolean } | undefined>();
  useEffect(() => {
    if (!client) return;
    client.getPersonalSettings().then(setOwn, (e: unknown) => setNote({ text: describeError(e), error: true }));
    client.listAgents().then(setAgents, () => undefined);
  }, [client]);
  if (!client) return <p class="muted">Pair this device first.</p>;
  const save = (event: Event) => {
    event.preventDefault();
    if (!own) return;
    client.updatePersonalSettings(own).then(
      (saved) => (setOwn(saved), setNote({ text: "Saved.", error: false })),
      (error: unknown) => setNote({ text: describeError(error), error: true }),
    );
  };
  return (
    <>
      <form class="card stack" onSubmit={save} aria-label="Personal settings">
        <h2>Instructions</h2>
        <label>
          Added to every chat of yours
          <textarea
            rows={4}
            maxLength={20000}
            value={own?.instructions ?? ""}
            placeholder="e.g. Answer briefly. I work in Python."
            onInput={(e) => own && setOwn({ ...own, instructions: e.currentTarget.value })}
          />
        </label>
        <div class="row wrap">
          <label>
            Default agent
            <select
              value={own?.default_agent ?? ""}
              onChange={(e) => own && setOwn({ ...own, default_agent: e.currentTarget.value || null })}
            >
              <option value="">The server's default</option>
              <OptionList values={agents.map((agent) => agent.agent_id)} />
            </select>
          </label>
          <label>
            Default model
            <input
              value={own?.default_model ?? ""}
              placeholder="The agent's model"
              onInput={(e) => own && setOwn({ ...own, default_model: e.currentTarget.value.trim() || null })}
            />
          </label>
        </div>
        <button type="submit" class="primary" disabled={!own}>
          Save
        </button>
        {note && (
          <p class={`notice ${note.error ? "error" : ""}`} role="status">
            {note.text}
          </p>
        )}
      </form>
      <PromptLibrary client={client} />
    </>
  );
}
