// The model of a chat: a searchable list of the models the provider discovered (the browser's own combobox,
// typed text filters it) that also takes any custom model id. Empty means the agent's default.
import { useEffect, useState } from "preact/hooks";
import type { Agent } from "../api/schemas.ts";
import type { DeviceApi } from "../api/device-api.ts";

interface Props {
  api: DeviceApi | undefined;
  agent: Agent | undefined;
  value: string | undefined;
  onChange: (model: string | undefined) => void;
}

export function ModelPicker({ api, agent, value, onChange }: Props) {
  const [models, setModels] = useState<string[]>([]);
  const [draft, setDraft] = useState(value ?? "");
  useEffect(() => setDraft(value ?? ""), [value]);
  useEffect(() => {
    if (!api || !agent) return;
    let current = true;
    api.listModels(agent).then((list) => current && setModels(list), () => current && setModels([]));
    return () => void (current = false);
  }, [api, agent?.agent_id]);
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
        placeholder={agent?.model ? `${agent.model} (default)` : "Model"}
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
