// The prompt library (Personal): titled texts the composer inserts when "/" is typed. Add, edit in place, delete.
import { useEffect, useState } from "preact/hooks";
import type { Prompt, ServerApi } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { SaveCancelRow } from "./form-parts.tsx";

/** A prompt being edited, or a new one (no id yet). */
type Draft = Prompt | { id: undefined; title: string; text: string };

export function PromptLibrary({ client }: { client: ServerApi }) {
  const [prompts, setPrompts] = useState<Prompt[] | undefined>();
  const [editing, setEditing] = useState<Draft>();
  const [problem, setProblem] = useState<string | undefined>();
  const run = (work: () => Promise<void>) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(describeError(error)));
  };
  const reload = () => run(async () => setPrompts(await client.listPrompts()));
  useEffect(reload, [client]);
  const save = (event: Event) => {
    event.preventDefault();
    const draft = editing;
    if (!draft) return;
    run(async () => {
      if (draft.id === undefined) await client.createPrompt({ title: draft.title, text: draft.text });
      else await client.updatePrompt(draft.id, { title: draft.title, text: draft.text });
      setEditing(undefined);
      setPrompts(await client.listPrompts());
    });
  };
  return (
    <section class="card stack" aria-label="Prompt library">
      <div class="page-head">
        <h2>Prompt library</h2>
        <button type="button" class="secondary" onClick={() => setEditing({ id: undefined, title: "", text: "" })}>
          New prompt
        </button>
      </div>
      <p class="muted">Type “/” in the message box to insert one.</p>
      <ErrorNotice problem={problem} />
      {editing && (
        <PromptForm draft={editing} onChange={setEditing} onSave={save} onCancel={() => setEditing(undefined)} />
      )}
      {prompts?.length === 0 && !editing && <p class="muted">No prompts yet.</p>}
      <ul class="settings-list">
        {prompts?.map((prompt) => (
          <PromptRow
            key={prompt.id}
            prompt={prompt}
            onEdit={() => setEditing(prompt)}
            onDelete={() => run(async () => (await client.deletePrompt(prompt.id), reload()))}
          />
        ))}
      </ul>
    </section>
  );
}

function PromptForm(props: {
  draft: Draft;
  onChange: (draft: Draft) => void;
  onSave: (event: Event) => void;
  onCancel: () => void;
}) {
  const { draft, onChange } = props;
  return (
    <form class="stack" onSubmit={props.onSave} aria-label="Prompt">
      <label>
        Title
        <input
          value={draft.title}
          maxLength={200}
          required
          onInput={(e) => onChange({ ...draft, title: e.currentTarget.value })}
        />
      </label>
      <label>
        Text
        <textarea
          rows={4}
          value={draft.text}
          maxLength={20000}
          required
          onInput={(e) => onChange({ ...draft, text: e.currentTarget.value })}
        />
      </label>
      <SaveCancelRow saveLabel="Save prompt" onCancel={props.onCancel} />
    </form>
  );
}

function PromptRow({ prompt, onEdit, onDelete }: { prompt: Prompt; onEdit: () => void; onDelete: () => void }) {
  return (
    <li class="prompt-row">
      <div>
        <strong>{prompt.title}</strong>
        <p class="muted clamp">{prompt.text}</p>
      </div>
      <div class="row">
        <button type="button" class="ghost" onClick={onEdit}>
          Edit
        </button>
        <button type="button" class="ghost danger" onClick={onDelete}>
          Delete
        </button>
      </div>
    </li>
  );
}
