// The small controls under a message: versions "‹ 1 / 2 ›" on a turn with versions, Copy message (the whole text as
// markdown), Edit message (user messages: edit, then resend), Regenerate (the last reply, optionally with another
// model for that one answer), Delete message (after "Delete message?"). A new control is one more entry here.
import { useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import type { MessageActions } from "./message-item.tsx";

interface Props {
  message: Message;
  index: number;
  actions: MessageActions;
  /** The reply Regenerate replaces (the last assistant message, no reply running). */
  last: boolean;
  /** Whether this row shows the turn's version switcher (the user message and its first reply). */
  showVersions: boolean;
  onEdit?: () => void;
}

export function MessageToolbar({ message, index, actions, last, showVersions, onEdit }: Props) {
  const [problem, setProblem] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [picking, setPicking] = useState(false);
  const run = (what: string, work: () => Promise<unknown>) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(`${what}: ${describeError(error)}`));
  };
  const copy = () =>
    run("Not copied", async () => {
      const copied = actions.copy ? await actions.copy(message.content) : false;
      setNote(copied ? "Copied" : "Copy is not available here: select the text instead");
    });
  const version = message.version ?? 1;
  const versions = message.versions ?? 1;
  return (
    <div class="message-menu">
      {problem && (
        <p class="notice error small" role="alert">
          {problem}
        </p>
      )}
      {showVersions && versions > 1 && actions.switchVersion && (
        <span class="versions">
          <button
            type="button"
            class="icon-button small"
            aria-label="Previous version"
            disabled={version <= 1}
            onClick={() => run("Not switched", () => actions.switchVersion!(index, version - 1))}
          >
            ‹
          </button>
          <span class="small">
            {version} / {versions}
          </span>
          <button
            type="button"
            class="icon-button small"
            aria-label="Next version"
            disabled={version >= versions}
            onClick={() => run("Not switched", () => actions.switchVersion!(index, version + 1))}
          >
            ›
          </button>
        </span>
      )}
      {message.content !== "" && (
        <button type="button" class="icon-button small" aria-label="Copy message" title={note ?? "Copy"} onClick={copy}>
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <rect x="8" y="8" width="12" height="12" rx="2" />
            <path d="M16 8V5a1 1 0 0 0-1-1H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3" />
          </svg>
        </button>
      )}
      {onEdit && (
        <button
          type="button"
          class="icon-button small"
          aria-label="Edit message"
          title="Edit and send again"
          onClick={onEdit}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M4 20h4L19 9l-4-4L4 16zM13 7l4 4" />
          </svg>
        </button>
      )}
      {last && actions.regenerate && (
        <>
          <button
            type="button"
            class="icon-button small"
            aria-label="Regenerate"
            title="Answer again"
            onClick={() => run("Not regenerated", () => actions.regenerate!())}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <path d="M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6" />
            </svg>
          </button>
          {actions.models && actions.models.length > 1 && (
            <button
              type="button"
              class="icon-button small"
              aria-label="Answer with another model"
              aria-expanded={picking}
              onClick={() => setPicking(!picking)}
            >
              <svg viewBox="0 0 24 24" aria-hidden="true">
                <path d="M7 10l5 5 5-5" />
              </svg>
            </button>
          )}
        </>
      )}
      {picking && actions.models && (
        <select
          aria-label="Model for this answer"
          onChange={(event) => (
            setPicking(false),
            run("Not regenerated", () => actions.regenerate!(event.currentTarget.value))
          )}
        >
          <option value="">Pick a model…</option>
          {actions.models.map((model) => (
            <option key={model} value={model}>
              {model}
            </option>
          ))}
        </select>
      )}
      {actions.remove && (
        <button
          type="button"
          class="icon-button small"
          aria-label="Delete message"
          title="Delete"
          onClick={() => setConfirming(true)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6" />
          </svg>
        </button>
      )}
      {note && (
        <span class="visually-hidden" role="status">
          {note}
        </span>
      )}
      {confirming && (
        <ConfirmDialog
          title="Delete message?"
          body="It is removed from this chat on every device."
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={() => (setConfirming(false), run("Not deleted", () => actions.remove!(index)))}
        />
      )}
    </div>
  );
}
