// "Remove Ana?": the required choice of what becomes of their chats (deleted, or given to another person), said
// before anything happens; their devices stop at once either way.
import { useState } from "preact/hooks";
import type { Person } from "../../../client/index.ts";
import { ModalDialog } from "../components/modal-dialog.tsx";

export type ChatsChoice = { chats: "delete" } | { chats: "transfer"; to: string };

interface Props {
  person: Person;
  /** The people who may receive the chats. */
  heirs: readonly Person[];
  onRemove(choice: ChatsChoice): void;
  onCancel(): void;
}

export function RemovePersonDialog({ person, heirs, onRemove, onCancel }: Props) {
  const [choice, setChoice] = useState<"delete" | "transfer" | undefined>();
  const [heir, setHeir] = useState(heirs[0]?.id ?? "");
  const submit = (event: Event) => {
    event.preventDefault();
    if (choice === "delete") onRemove({ chats: "delete" });
    else if (choice === "transfer" && heir) onRemove({ chats: "transfer", to: heir });
  };
  return (
    <ModalDialog class="confirm-dialog remove-person" labelledBy="remove-person-title" onCancel={onCancel}>
      <form class="stack" onSubmit={submit}>
        <h2 id="remove-person-title">Remove {person.name}?</h2>
        <p>Their devices are signed out at once. What should happen to their chats?</p>
        <fieldset>
          <legend class="visually-hidden">Their chats</legend>
          <label class="check">
            <input type="radio" name="chats" checked={choice === "delete"} onChange={() => setChoice("delete")} />
            Delete their chats
          </label>
          <label class="check">
            <input
              type="radio"
              name="chats"
              checked={choice === "transfer"}
              disabled={heirs.length === 0}
              onChange={() => setChoice("transfer")}
            />
            Give their chats to
          </label>
          <select
            aria-label="Who receives the chats"
            value={heir}
            disabled={choice !== "transfer"}
            onChange={(e) => setHeir(e.currentTarget.value)}
          >
            {heirs.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </fieldset>
        <div class="row-actions">
          <button type="button" class="ghost" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="danger" disabled={choice === undefined}>
            Remove
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
