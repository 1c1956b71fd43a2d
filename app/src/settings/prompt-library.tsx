// The prompt library (Personal): titled texts the composer inserts when "/" is typed. Add, edit in place, delete.
import { useEffect, useState } from "preact/hooks";
import type { Prompt, ServerApi } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";

export function PromptLibrary({ client }: { client: ServerApi }) {
  const [prompts, setPrompts] = useState<Prompt[] | undefined>();
  const [editing, setEditing] = useState<Prompt | { id: undefined; title: string; text: string }>();
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
      {problem && (
        <p class="notice error" role="alert">
          {problem}
        </p>
      )}
      {editing && (
        <form class="stack" onSubmit={save} aria-label="Prompt">
          <label>
            Title
            <input
              value={editing.title}
              maxLength={200}
              required
              onInput={(e) => setEditing({ ...editing, title: e.currentTarget.value })}
            />
          </label>
          <label>
            Text
            <textarea
              rows={4}
              value={editing.text}
              maxLength={20000}
              required
              onInput={(e) => setEditing({ ...editing, text: e.currentTarget.value })}
            />
          </label>
          <div class="row">
            <button type="submit" class="primary">
              Save prompt
            </button>
            <button type="button" class="ghost" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {prompts?.length === 0 && !editing && <p class="muted">No prompts yet.</p>}
      <ul class="settings-list">
        {prompts?.map((prompt) => (
          <li key={prompt.id} class="prompt-row">
            <div>
              <strong>{prompt.title}</strong>
              <p class="muted clamp">{prompt.text}</p>
            </div>
            <div class="row">
              <button type="button" class="ghost" onClick={() => setEditing(prompt)}>
                Edit
              </button>
              <button
                type="button"
                class="ghost danger"
                onClick={() => run(async () => (await client.deletePrompt(prompt.id), reload()))}
              >
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
