// The small controls under a message: versions "‹ 1 / 2 ›" on a turn with versions, Copy message (the whole text as
// markdown), Edit message (user messages: edit, then resend), Regenerate (the last reply, optionally with another
// model for that one answer), Delete message (after "Delete message?"). Each control is its own component over the
// chat controller (state/chat.ts); a new control is one more entry in <MessageToolbar>. A control that fails says
// why above the row. A row mounted during a fast scroll gets its toolbar once the page is still
// (render/scroll-pacing.ts).
import { useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import { useChat } from "../state/chat-context.ts";
import { describeError } from "../state/errors.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { BIN_PATH, IconButton, PEN_PATH } from "./icon-button.tsx";
import { ReadAloud } from "../voice/lazy-voice.tsx";
import { ErrorNotice } from "./error-notice.tsx";
import { useToolbarReady } from "../render/scroll-pacing.ts";

interface Props {
  message: Message;
  index: number;
  /** The reply Regenerate replaces (the last assistant message, no reply running). */
  last: boolean;
  /** Whether this row shows the turn's version switcher (the user message and its first reply). */
  showVersions: boolean;
  onEdit?: () => void;
}

/** Runs a control's work; a failure is said as "<what>: <why>". */
type Run = (what: string, work: () => Promise<unknown>) => void;

export function MessageToolbar({ message, index, last, showVersions, onEdit }: Props) {
  const editable = useChat().editable.value;
  const ready = useToolbarReady();
  const [problem, setProblem] = useState<string | undefined>();
  // Mounted during a fast scroll past the frame's budget (scroll-pacing.ts): an empty bar as tall as the controls
  // (there are some when there is text to copy or the chat can be edited), filled once the page is still.
  if (!ready) return <div class={message.content !== "" || editable ? "message-menu pending" : "message-menu"} />;
  const run: Run = (what, work) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(`${what}: ${describeError(error)}`));
  };
  return (
    <div class="message-menu">
      <ErrorNotice problem={problem} class="small" />
      {showVersions && editable && <VersionSwitch message={message} index={index} run={run} />}
      {message.content !== "" && <CopyButton text={message.content} run={run} />}
      {message.role === "assistant" && message.content.trim() !== "" && <ReadAloud content={message.content} />}
      {onEdit && (
        <IconButton small label="Edit message" title="Edit and send again" onClick={onEdit}>
          <path d={PEN_PATH} />
        </IconButton>
      )}
      {last && editable && <RegenerateControls run={run} />}
      {editable && <DeleteMessageButton index={index} run={run} />}
    </div>
  );
}

function VersionSwitch({ message, index, run }: { message: Message; index: number; run: Run }) {
  const chat = useChat();
  const version = message.version ?? 1;
  const versions = message.versions ?? 1;
  if (versions <= 1) return null;
  const go = (to: number) => run("Not switched", () => chat.switchVersion(index, to));
  return (
    <span class="versions">
      <button
        type="button"
        class="icon-button small"
        aria-label="Previous version"
        disabled={version <= 1}
        onClick={() => go(version - 1)}
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
        onClick={() => go(version + 1)}
      >
        ›
      </button>
    </span>
  );
}

function CopyButton({ text, run }: { text: string; run: Run }) {
  const chat = useChat();
  const [note, setNote] = useState<string | undefined>();
  const copy = () =>
    run("Not copied", async () => {
      const copied = await chat.copy(text);
      setNote(copied ? "Copied" : "Copy is not available here: select the text instead");
    });
  return (
    <>
      <IconButton small label="Copy message" title={note ?? "Copy"} onClick={copy}>
        <rect x="8" y="8" width="12" height="12" rx="2" />
        <path d="M16 8V5a1 1 0 0 0-1-1H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3" />
      </IconButton>
      {note && (
        <span class="visually-hidden" role="status">
          {note}
        </span>
      )}
    </>
  );
}

function RegenerateControls({ run }: { run: Run }) {
  const chat = useChat();
  const models = chat.models.value;
  const [picking, setPicking] = useState(false);
  const regenerate = (model?: string) => run("Not regenerated", () => chat.regenerate(model));
  return (
    <>
      <IconButton small label="Regenerate" title="Answer again" onClick={() => regenerate()}>
        <path d="M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6" />
      </IconButton>
      {models.length > 1 && (
        <IconButton small label="Answer with another model" expanded={picking} onClick={() => setPicking(!picking)}>
          <path d="M7 10l5 5 5-5" />
        </IconButton>
      )}
      {picking && (
        <select
          aria-label="Model for this answer"
          onChange={(event) => (setPicking(false), regenerate(event.currentTarget.value))}
        >
          <option value="">Pick a model…</option>
          {models.map((model) => (
            <option key={model} value={model}>
              {model}
            </option>
          ))}
        </select>
      )}
    </>
  );
}

function DeleteMessageButton({ index, run }: { index: number; run: Run }) {
  const chat = useChat();
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <IconButton small label="Delete message" title="Delete" onClick={() => setConfirming(true)}>
        <path d={BIN_PATH} />
      </IconButton>
      {confirming && (
        <ConfirmDialog
          title="Delete message?"
          body="It is removed from this chat on every device."
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={() => (setConfirming(false), run("Not deleted", () => chat.remove(index)))}
        />
      )}
    </>
  );
}
