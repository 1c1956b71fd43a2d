// The small controls under a message: versions "‹ 1 / 2 ›" on a turn with versions, Copy message (the whole text as
// markdown), Edit message (user messages: edit, then resend), Regenerate (the last reply, optionally with another
// model for that one answer), Delete message (after "Delete message?"). A new control is one more entry here.
import { useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { BIN_PATH, IconButton, PEN_PATH } from "./icon-button.tsx";
import type { MessageActions } from "./message-item.tsx";
import { ReadAloud } from "../voice/lazy-voice.tsx";

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
        <IconButton small label="Copy message" title={note ?? "Copy"} onClick={copy}>
          <rect x="8" y="8" width="12" height="12" rx="2" />
          <path d="M16 8V5a1 1 0 0 0-1-1H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3" />
        </IconButton>
      )}
      {message.role === "assistant" && message.content.trim() !== "" && <ReadAloud content={message.content} />}
      {onEdit && (
        <IconButton small label="Edit message" title="Edit and send again" onClick={onEdit}>
          <path d={PEN_PATH} />
        </IconButton>
      )}
      {last && actions.regenerate && (
        <>
          <IconButton
            small
            label="Regenerate"
            title="Answer again"
            onClick={() => run("Not regenerated", () => actions.regenerate!())}
          >
            <path d="M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6" />
          </IconButton>
          {actions.models && actions.models.length > 1 && (
            <IconButton small label="Answer with another model" expanded={picking} onClick={() => setPicking(!picking)}>
              <path d="M7 10l5 5 5-5" />
            </IconButton>
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
        <IconButton small label="Delete message" title="Delete" onClick={() => setConfirming(true)}>
          <path d={BIN_PATH} />
        </IconButton>
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
