// One row of the transcript: a user message (edit, delete), an assistant reply (markdown, thinking, tool calls,
// usage, interrupted mark), a tool result, or a system message.
import { useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import type { AgentView as Agent } from "../../../client/index.ts";
import { reasoningOf } from "../chat/transcript.ts";
import { describeError } from "../state/errors.ts";
import { MarkdownView } from "./markdown-view.tsx";
import { ThinkingBlock } from "./thinking-block.tsx";
import { ToolCalls, ToolMessage } from "./tool-message.tsx";
import { UsageFooter } from "./usage-footer.tsx";

export interface MessageActions {
  edit?: (index: number, content: string) => Promise<void>;
  remove?: (index: number) => Promise<void>;
}

interface Props {
  message: Message;
  index: number;
  agent: Agent | undefined;
  actions: MessageActions;
}

export function MessageItem({ message, index, agent, actions }: Props) {
  if (message.role === "tool") return <ToolMessage message={message} />;
  if (message.role === "user") return <UserMessage message={message} index={index} actions={actions} />;
  const metadata = message.metadata;
  const interrupted = interruptionOf(metadata);
  return (
    <article class={`message ${message.role}`} data-role={message.role} aria-label={message.role === "assistant" ? "Assistant" : "System"}>
      <ThinkingBlock text={reasoningOf(metadata)} streaming={false} />
      {message.content !== "" && <MarkdownView text={message.content} />}
      <ToolCalls metadata={metadata} />
      {interrupted && <p class="interrupted">{interrupted}</p>}
      <UsageFooter metadata={metadata} agent={agent} />
      {actions.remove && <MessageMenu index={index} actions={actions} />}
    </article>
  );
}

/** The mark of a reply kept unfinished (`metadata.interrupted`: "user", "shutdown", "crash", or true from older servers). */
export function interruptionOf(metadata: Record<string, unknown> | undefined): string | undefined {
  switch (metadata?.interrupted) {
    case "user":
      return "Stopped before the end.";
    case "shutdown":
      return "Interrupted: the server restarted.";
    case "crash":
      return "Interrupted: the server stopped unexpectedly. The text above is what had arrived.";
    case true: {
      const reason = metadata.interrupted_reason;
      return `Reply interrupted${typeof reason === "string" ? ` (${reason.replaceAll("_", " ")})` : ""}.`;
    }
    default:
      return undefined;
  }
}

function UserMessage({ message, index, actions }: { message: Message; index: number; actions: MessageActions }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(message.content);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const attachments = Array.isArray(message.metadata?.attachments) ? message.metadata.attachments.length : 0;
  if (editing && actions.edit) {
    const save = async () => {
      setBusy(true);
      setProblem(undefined);
      try {
        await actions.edit!(index, draft);
        setEditing(false);
      } catch (error) {
        setProblem(`Not saved: ${describeError(error)}`);
      } finally {
        setBusy(false);
      }
    };
    return (
      <article class="message user editing" data-role="user">
        <label class="visually-hidden" for={`edit-${index}`}>
          Edit message
        </label>
        <textarea id={`edit-${index}`} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} rows={3} />
        {problem && (
          <p class="notice error" role="alert">
            {problem}
          </p>
        )}
        <div class="row-actions">
          <button type="button" class="ghost" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <button type="button" class="primary" disabled={busy || draft.trim() === ""} onClick={save}>
            Save
          </button>
        </div>
      </article>
    );
  }
  return (
    <article class="message user" data-role="user" aria-label="You">
      <div class="bubble">
        <MarkdownView text={message.content} />
        {attachments > 0 && <p class="attachment-note">{attachments === 1 ? "1 image attached" : `${attachments} images attached`}</p>}
      </div>
      <MessageMenu index={index} actions={actions} onEdit={actions.edit ? () => (setDraft(message.content), setEditing(true)) : undefined} />
    </article>
  );
}

function MessageMenu({ index, actions, onEdit }: { index: number; actions: MessageActions; onEdit?: () => void }) {
  const [problem, setProblem] = useState<string | undefined>();
  if (!onEdit && !actions.remove) return null;
  const remove = () => {
    setProblem(undefined);
    actions.remove!(index).catch((error: unknown) => setProblem(`Not deleted: ${describeError(error)}`));
  };
  return (
    <div class="message-menu">
      {problem && (
        <p class="notice error small" role="alert">
          {problem}
        </p>
      )}
      {onEdit && (
        <button type="button" class="icon-button small" aria-label="Edit message" title="Edit" onClick={onEdit}>
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20h4L19 9l-4-4L4 16zM13 7l4 4" /></svg>
        </button>
      )}
      {actions.remove && (
        <button type="button" class="icon-button small" aria-label="Delete message" title="Delete" onClick={remove}>
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6" /></svg>
        </button>
      )}
    </div>
  );
}
