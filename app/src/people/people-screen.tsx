// People (admin role): everyone on the server with their role, allowed agents and daily limit; "Add person" (then the
// QR code of their first device), Edit, "Pair a device" for them, and Remove, which asks what becomes of their chats.
// A member who opens the address is told the screen is an admin's; the menu does not offer it to them.
import { useEffect, useState } from "preact/hooks";
import type { ChatClient, PairingCreated, Person } from "../../../client/index.ts";
import { AddDevice } from "../components/add-device.tsx";
import { useStore } from "../state/store.ts";
import { peopleErrorText } from "./people-errors.ts";
import { adminScreen } from "./admin-only.tsx";
import { PersonForm, type PersonDraft } from "./person-form.tsx";
import { RemovePersonDialog } from "./remove-person-dialog.tsx";
import "./people.css";
import { ErrorNotice } from "../components/error-notice.tsx";

type Editing = { kind: "add" } | { kind: "edit"; person: Person } | undefined;

export const PeopleScreen = adminScreen("People", "Only an admin manages the people on this server.", PeopleAdmin);

function PeopleAdmin() {
  const { people } = useStore();
  const [list, setList] = useState<Person[] | undefined>();
  const [editing, setEditing] = useState<Editing>();
  const [removing, setRemoving] = useState<Person | undefined>();
  const [pairing, setPairing] = useState<{ person: Person; code: PairingCreated } | undefined>();
  const { problem, run, client } = useRunner();
  const reload = async () => {
    setList((await client().listPeople()).filter((person) => person.removed_at === null));
    await people.refresh();
  };
  useEffect(() => run(reload), []);
  const pairFor = (person: Person) =>
    run(async () => setPairing({ person, code: await client().createPairing({ person_id: person.id }) }));
  const save = (draft: PersonDraft) =>
    run(async () => {
      const created = await savePerson(client(), editing, draft);
      // A new person's first device: the QR code at once.
      if (created) setPairing({ person: created, code: await client().createPairing({ person_id: created.id }) });
      setEditing(undefined);
      await reload();
    });
  const remove = (person: Person, chats: { chats: "delete" } | { chats: "transfer"; to: string }) =>
    run(async () => {
      setRemoving(undefined);
      await client().removePerson(person.id, chats);
      await reload();
    });
  return (
    <main class="page people" aria-labelledby="people-title">
      <PeopleHead onAdd={() => (setEditing({ kind: "add" }), setPairing(undefined))} />
      <ErrorNotice problem={problem} />
      {editing && (
        <PersonForm
          person={editing.kind === "edit" ? editing.person : undefined}
          onSave={save}
          onCancel={() => setEditing(undefined)}
        />
      )}
      {pairing && (
        <AddDevice
          code={pairing.code}
          forName={pairing.person.name}
          onNewCode={() => pairFor(pairing.person)}
          onClose={() => setPairing(undefined)}
        />
      )}
      {list === undefined ? (
        !problem && <p class="muted">Loading…</p>
      ) : (
        <PersonList
          list={list}
          onEdit={(person) => (setEditing({ kind: "edit", person }), setPairing(undefined))}
          onPair={pairFor}
          onRemove={setRemoving}
        />
      )}
      {removing && list && (
        <RemovePersonDialog
          person={removing}
          // An admin's device may not take a removed person's chats for itself (only the admin token may).
          heirs={list.filter((person) => person.id !== removing.id && person.id !== people.me.value?.id)}
          onRemove={(chats) => remove(removing, chats)}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </main>
  );
}

/** The title, the way to the audit log and "Add person". */
function PeopleHead({ onAdd }: { onAdd(): void }) {
  return (
    <div class="page-head">
      <h1 id="people-title">People</h1>
      <div class="row-actions">
        <a class="button" href="#/people/audit">
          Audit log
        </a>
        <button type="button" class="primary" onClick={onAdd}>
          Add person
        </button>
      </div>
    </div>
  );
}

/** The paired client, and a runner of its calls whose failure is said as one sentence. */
function useRunner() {
  const { connection } = useStore();
  const [problem, setProblem] = useState<string | undefined>();
  const client = () => {
    const current = connection.paired.value;
    if (!current) throw new Error("this device is not paired.");
    return current.client;
  };
  const run = (work: () => Promise<void>) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(peopleErrorText(error)));
  };
  return { problem, run, client };
}

/** Saves the form: a change to a person, or a new one (answered, for their first device's code). */
async function savePerson(client: ChatClient, editing: Editing, draft: PersonDraft): Promise<Person | undefined> {
  if (editing?.kind === "edit") {
    await client.updatePerson(editing.person.id, draft);
    return undefined;
  }
  const { max_requests_per_day: limit, ...rest } = draft;
  return client.createPerson(limit === null ? rest : { ...rest, max_requests_per_day: limit });
}

interface ListProps {
  list: readonly Person[];
  onEdit(person: Person): void;
  onPair(person: Person): void;
  onRemove(person: Person): void;
}

function PersonList({ list, onEdit, onPair, onRemove }: ListProps) {
  const { people } = useStore();
  return (
    <ul class="person-list">
      {list.map((person) => (
        <PersonRow
          key={person.id}
          person={person}
          self={person.id === people.me.value?.id}
          onEdit={() => onEdit(person)}
          onPair={() => onPair(person)}
          onRemove={() => onRemove(person)}
        />
      ))}
    </ul>
  );
}

interface RowProps {
  person: Person;
  self: boolean;
  onEdit(): void;
  onPair(): void;
  onRemove(): void;
}

function PersonRow({ person, self, onEdit, onPair, onRemove }: RowProps) {
  return (
    <li class="person card">
      <div>
        <strong>{person.name}</strong>
        {self && <span class="badge-this-device">You</span>}
        <dl class="device-facts">
          <dt>Role</dt>
          <dd>{person.role === "admin" ? "Admin" : "Member"}</dd>
          <dt>Agents</dt>
          <dd>{person.agents === "*" ? "all" : person.agents.join(", ") || "none"}</dd>
          <dt>Daily limit</dt>
          <dd>{person.max_requests_per_day === undefined ? "none" : `${person.max_requests_per_day} requests`}</dd>
        </dl>
      </div>
      <div class="row-actions">
        <button type="button" class="secondary" onClick={onEdit} aria-label={`Edit ${person.name}`}>
          Edit
        </button>
        <button type="button" class="secondary" onClick={onPair} aria-label={`Pair a device for ${person.name}`}>
          Pair a device
        </button>
        <button type="button" class="danger" onClick={onRemove} aria-label={`Remove ${person.name}`}>
          Remove
        </button>
      </div>
    </li>
  );
}
