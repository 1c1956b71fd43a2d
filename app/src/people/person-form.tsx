// Add or edit a person: name, role, the agents they may use (all, or those ticked) and an optional daily request
// limit. The agents offered are the server's (the admin sees them all).
import { useState } from "preact/hooks";
import type { Person, PersonAgents } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";

export interface PersonDraft {
  name: string;
  role: "admin" | "member";
  agents: PersonAgents;
  /** null: no limit (PATCH removes one). */
  max_requests_per_day: number | null;
}

interface Props {
  /** The person edited; undefined adds one. */
  person?: Person;
  onSave(draft: PersonDraft): void;
  onCancel(): void;
}

export function PersonForm({ person, onSave, onCancel }: Props) {
  const { sync } = useStore();
  const [name, setName] = useState(person?.name ?? "");
  const [role, setRole] = useState<PersonDraft["role"]>(person?.role ?? "member");
  const [allAgents, setAllAgents] = useState(person === undefined || person.agents === "*");
  const [picked, setPicked] = useState<readonly string[]>(person?.agents === "*" ? [] : (person?.agents ?? []));
  const [limit, setLimit] = useState(person?.max_requests_per_day?.toString() ?? "");
  const title = person ? `Edit ${person.name}` : "Add person";
  const toggle = (id: string) => setPicked(picked.includes(id) ? picked.filter((p) => p !== id) : [...picked, id]);
  const submit = (event: Event) => {
    event.preventDefault();
    const max = limit.trim() === "" ? null : Number(limit);
    onSave({ name: name.trim(), role, agents: allAgents ? "*" : [...picked], max_requests_per_day: max });
  };
  return (
    <form class="card stack person-form" aria-label={title} onSubmit={submit}>
      <h2>{title}</h2>
      <label>
        Name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={100} required />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as PersonDraft["role"])}>
          <option value="member">Member: their own chats and devices</option>
          <option value="admin">Admin: also manages people and devices</option>
        </select>
      </label>
      <fieldset class="agent-choice">
        <legend>Agents they may use</legend>
        <label class="check">
          <input type="checkbox" checked={allAgents} onChange={(e) => setAllAgents(e.currentTarget.checked)} />
          All agents
        </label>
        {!allAgents &&
          sync.agents.value.map((agent) => (
            <label class="check" key={agent.agent_id}>
              <input
                type="checkbox"
                checked={picked.includes(agent.agent_id)}
                onChange={() => toggle(agent.agent_id)}
              />
              {agent.agent_id}
            </label>
          ))}
      </fieldset>
      <label>
        Requests per day (empty: no limit)
        <input
          type="number"
          inputMode="numeric"
          min={1}
          max={1000000}
          value={limit}
          onInput={(e) => setLimit(e.currentTarget.value)}
        />
      </label>
      <div class="row-actions">
        <button type="button" class="ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary">
          {person ? "Save" : "Add"}
        </button>
      </div>
    </form>
  );
}
