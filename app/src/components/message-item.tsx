// One row of the transcript: a user message (edit and resend), an assistant reply (markdown, thinking, tool calls,
// usage, interrupted mark), a tool result, or a system message; each with its toolbar (message-toolbar.tsx).
import { useState } from "preact/hooks";
import type { Signal } from "@preact/signals";
import type { Message } from "../../../client/index.ts";
import type { AgentView as Agent } from "../../../client/index.ts";
import { reasoningOf } from "../chat/transcript.ts";
import { describeError } from "../state/errors.ts";
import { MarkdownView } from "./markdown-view.tsx";
import { ThinkingBlock } from "./thinking-block.tsx";
import { ToolCalls, ToolMessage } from "./tool-message.tsx";
import { MessageToolbar } from "./message-toolbar.tsx";
import { UsageFooter } from "./usage-footer.tsx";

export interface MessageActions {
  /** Edit a user message, then resend it (a new version of its turn). */
  edit?: (index: number, content: string) => Promise<void>;
  remove?: (index: number) => Promise<void>;
  copy?: (text: string) => Promise<boolean>;
  /** Answer the last turn again; `model` for that one answer. */
  regenerate?: (model?: string) => Promise<void>;
  switchVersion?: (index: number, version: number) => Promise<void>;
  /** Models Regenerate may pick from (the provider's discovered ones). */
  models?: readonly string[];
  /** The index of the user message asked to open in edit mode (Up arrow in the empty composer). */
  editing?: Signal<number | undefined>;
  stopEditing?: () => void;
}

interface Props {
  message: Message;
  index: number;
  agent: Agent | undefined;
  actions: MessageActions;
  last?: boolean;
  showVersions?: boolean;
}

export function MessageItem({ message, index, agent, actions, last = false, showVersions = false }: Props) {
  if (message.role === "tool") return <ToolMessage message={message} />;
  if (message.role === "user")
    return <UserMessage message={message} index={index} actions={actions} showVersions={showVersions} />;
  const metadata = message.metadata;
  const interrupted = interruptionOf(metadata);
  return (
    <article
      class={`message ${message.role}`}
      data-role={message.role}
      aria-label={message.role === "assistant" ? "Assistant" : "System"}
    >
      <ThinkingBlock text={reasoningOf(metadata)} streaming={false} />
      {message.content !== "" && <MarkdownView text={message.content} />}
      <ToolCalls metadata={metadata} />
      {interrupted && <p class="interrupted">{interrupted}</p>}
      <UsageFooter metadata={metadata} agent={agent} />
      <MessageToolbar message={message} index={index} actions={actions} last={last} showVersions={showVersions} />
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
      // Older servers: `true`, with `interrupted_reason` ("error" when the provider failed mid-reply).
      const reason = metadata.interrupted_reason;
      if (reason === "error") return "Interrupted: the reply failed with an error. The text above is what had arrived.";
      return `Reply interrupted${typeof reason === "string" ? ` (${reason.replaceAll("_", " ")})` : ""}.`;
    }
    default:
      return undefined;
  }
}

function UserMessage({
  message,
  index,
  actions,
  showVersions,
}: {
  message: Message;
  index: number;
  actions: MessageActions;
  showVersions: boolean;
}) {
  const [editingHere, setEditingHere] = useState(false);
  const [draft, setDraft] = useState(message.content);
  const asked = actions.editing?.value === index;
  const editing = editingHere || asked;
  const setEditing = (value: boolean) => {
    setEditingHere(value);
    if (!value) actions.stopEditing?.();
  };
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
        <textarea
          id={`edit-${index}`}
          autoFocus
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          rows={3}
        />
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
            Resend
          </button>
        </div>
      </article>
    );
  }
  return (
    <article class="message user" data-role="user" aria-label="You">
      <div class="bubble">
        <MarkdownView text={message.content} />
        {attachments > 0 && (
          <p class="attachment-note">{attachments === 1 ? "1 image attached" : `${attachments} images attached`}</p>
        )}
      </div>
      <MessageToolbar
        message={message}
        index={index}
        actions={actions}
        last={false}
        showVersions={showVersions}
        onEdit={actions.edit ? () => (setDraft(message.content), setEditing(true)) : undefined}
      />
    </article>
  );
}
