// The agent's request_options_ui selects (docs/provider.md "Provider settings"): those marked rich_ui sit by the composer, the others in
// the chat's settings panel. Their values are sent as request_options.
import type { AgentView as Agent } from "../../../client/index.ts";
import { OptionList } from "./option-list.tsx";

type SelectDescriptor = Agent["request_options_ui"][string];

interface Props {
  agent: Agent | undefined;
  rich: boolean;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
}

/** The agent's select options shown by the composer (`rich`) or in the settings panel. */
export function selectOptionsOf(agent: Agent | undefined, rich: boolean): Array<[string, SelectDescriptor]> {
  return Object.entries(agent?.request_options_ui ?? {}).filter(
    ([, descriptor]) => descriptor.type === "select" && (descriptor.rich_ui === true) === rich,
  );
}

export function RequestOptions({ agent, rich, values, onChange }: Props) {
  const entries = selectOptionsOf(agent, rich);
  if (entries.length === 0) return null;
  return (
    <>
      {entries.map(([name, descriptor]) => (
        <OptionSelect
          key={name}
          name={name}
          descriptor={descriptor}
          value={values[name]}
          onChange={(value) => onChange(withValue(values, name, value))}
        />
      ))}
    </>
  );
}

function OptionSelect({
  name,
  descriptor,
  value,
  onChange,
}: {
  name: string;
  descriptor: SelectDescriptor;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <label class="option-select">
      <span>{name.replaceAll("_", " ")}</span>
      <select value={value ?? ""} onChange={(event) => onChange(event.currentTarget.value || undefined)}>
        <option value="">default</option>
        <OptionList values={descriptor.options} />
      </select>
    </label>
  );
}

function withValue(values: Record<string, string>, name: string, value: string | undefined): Record<string, string> {
  const next = { ...values };
  if (value === undefined) delete next[name];
  else next[name] = value;
  return next;
}
