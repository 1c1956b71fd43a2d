// The model of a chat: a searchable list of the models the provider discovered (the browser's own combobox,
// typed text filters it) that also takes any custom model id. Empty means the agent's default.
import { useEffect, useState } from "preact/hooks";
import type { AgentView as Agent } from "../../../client/index.ts";
import type { ChatClient } from "../../../client/index.ts";

interface Props {
  client: ChatClient | undefined;
  agent: Agent | undefined;
  value: string | undefined;
  onChange: (model: string | undefined) => void;
  /** The discovered models, for Regenerate's "another model". */
  onModels?: (models: string[]) => void;
}

export function ModelPicker({ client, agent, value, onChange, onModels }: Props) {
  const [models, setModels] = useState<string[]>([]);
  const [draft, setDraft] = useState(value ?? "");
  /** Discovery failed: any model id can still be typed; the placeholder says why the list is empty. */
  const [failed, setFailed] = useState(false);
  useEffect(() => setDraft(value ?? ""), [value]);
  useEffect(() => {
    if (!client || !agent) return;
    let current = true;
    client.listModels(agent.provider_id, { agent_id: agent.agent_id }).then(
      (list) => {
        if (!current) return;
        const ids = list.models.map((model) => model.id);
        setModels(ids);
        setFailed(list.error !== undefined);
        onModels?.(ids);
      },
      () => current && (setModels([]), setFailed(true)),
    );
    return () => void (current = false);
  }, [client, agent?.agent_id]);
  const commit = () => {
    const next = draft.trim() === "" ? undefined : draft.trim();
    if (next !== value) onChange(next);
  };
  const listId = `models-${agent?.agent_id ?? "none"}`;
  return (
    <label class="model-picker">
      <span class="picker-label">Model</span>
      <span class="picker-field">
        <input
          list={listId}
          value={draft}
          placeholder={
            failed ? "Models could not be listed: type one" : agent?.model ? `${agent.model} (default)` : "Model"
          }
          onInput={(event) => setDraft(event.currentTarget.value)}
          onChange={commit}
          onKeyDown={(event) => event.key === "Enter" && (event.preventDefault(), commit())}
          spellcheck={false}
          autoComplete="off"
        />
        <svg class="picker-chevron" viewBox="0 0 24 24" aria-hidden="true">
          <path d="M7 10l5 5 5-5" />
        </svg>
      </span>
      <datalist id={listId}>
        {models.map((model) => (
          <option key={model} value={model} />
        ))}
      </datalist>
      {failed && (
        <span class="picker-note small" role="status">
          The model list could not be loaded; type a model id.
        </span>
      )}
    </label>
  );
}
