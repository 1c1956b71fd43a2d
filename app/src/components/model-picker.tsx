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
}

export function ModelPicker({ client, agent, value, onChange }: Props) {
  const [models, setModels] = useState<string[]>([]);
  const [draft, setDraft] = useState(value ?? "");
  /** Discovery failed: any model id can still be typed; the placeholder says why the list is empty. */
  const [failed, setFailed] = useState(false);
  useEffect(() => setDraft(value ?? ""), [value]);
  useEffect(() => {
    if (!client || !agent) return;
    let current = true;
    client.listModels(agent.provider_id, { agent_id: agent.agent_id }).then(
      (list) => current && (setModels(list.models.map((model) => model.id)), setFailed(list.error !== undefined)),
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
      <span class="visually-hidden">Model</span>
      <input
        list={listId}
        value={draft}
        placeholder={failed ? "Models could not be listed: type one" : agent?.model ? `${agent.model} (default)` : "Model"}
        onInput={(event) => setDraft(event.currentTarget.value)}
        onChange={commit}
        onKeyDown={(event) => event.key === "Enter" && (event.preventDefault(), commit())}
        spellcheck={false}
        autoComplete="off"
      />
      <datalist id={listId}>
        {models.map((model) => (
          <option key={model} value={model} />
        ))}
      </datalist>
    </label>
  );
}
