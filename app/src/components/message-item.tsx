// One row of the transcript: a user message (edit and resend), an assistant reply (markdown, thinking, tool calls,
// usage, interrupted mark), a tool result, or a system message; each with its toolbar (message-toolbar.tsx).
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import type { AgentView as Agent } from "../../../client/index.ts";
import { reasoningOf } from "../chat/transcript.ts";
import { useChat } from "../state/chat-context.ts";
import { describeError } from "../state/errors.ts";
import { MarkdownView } from "./markdown-view.tsx";
import { MessageAttachments, ReplyText, RetrievalNotice } from "../documents/lazy-documents.tsx";
import { ThinkingBlock } from "./thinking-block.tsx";
import { ToolCalls, ToolMessage } from "./tool-message.tsx";
import { MessageToolbar } from "./message-toolbar.tsx";
import { UsageFooter } from "./usage-footer.tsx";
import { SenderName } from "../people/sender-name.tsx";
import { ErrorNotice } from "./error-notice.tsx";

interface Props {
  message: Message;
  index: number;
  agent: Agent | undefined;
  last?: boolean;
  showVersions?: boolean;
}

export function MessageItem({ message, index, agent, last = false, showVersions = false }: Props) {
  if (message.role === "tool") return <ToolMessage message={message} />;
  if (message.role === "user") return <UserMessage message={message} index={index} showVersions={showVersions} />;
  const metadata = message.metadata;
  const interrupted = interruptionOf(metadata);
  return (
    <ReplyArticle message={message}>
      {message.content !== "" && <ReplyText message={message} />}
      <RetrievalNotice metadata={metadata} />
      <ToolCalls metadata={metadata} />
      {interrupted && <p class="interrupted">{interrupted}</p>}
      <UsageFooter metadata={metadata} agent={agent} />
      <MessageToolbar message={message} index={index} last={last} showVersions={showVersions} />
    </ReplyArticle>
  );
}

/** The mark of a reply kept unfinished (`metadata.interrupted`: "user", "shutdown", "crash", or true from older servers). */
/** An assistant's or system message's frame, named by its role, with its thinking first; the transcript and a
 *  shared chat put what follows inside. */
export function ReplyArticle({ message, children }: { message: Message; children: ComponentChildren }) {
  return (
    <article
      class={`message ${message.role}`}
      data-role={message.role}
      aria-label={message.role === "assistant" ? "Assistant" : "System"}
    >
      <ThinkingBlock text={reasoningOf(message.metadata)} streaming={false} />
      {children}
    </article>
  );
}

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

function UserMessage({ message, index, showVersions }: { message: Message; index: number; showVersions: boolean }) {
  const chat = useChat();
  if (chat.editing.value === index && chat.editable.value) return <EditBox message={message} index={index} />;
  return (
    <article class="message user" data-role="user" aria-label="You">
      <div class="bubble">
        <SenderName message={message} />
        <MarkdownView text={message.content} />
        <MessageAttachments message={message} />
      </div>
      <MessageToolbar
        message={message}
        index={index}
        last={false}
        showVersions={showVersions}
        onEdit={chat.editable.value ? () => chat.startEditing(index) : undefined}
      />
    </article>
  );
}

/** A user message open for editing: the box takes the focus when it opens; Resend sends it as a new version. */
function EditBox({ message, index }: { message: Message; index: number }) {
  const chat = useChat();
  const [draft, setDraft] = useState(message.content);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const box = useRef<HTMLTextAreaElement>(null);
  // `autoFocus` acts once per page in browsers; a box opened later (Edit, or Up in the composer) is focused here.
  useEffect(() => box.current?.focus(), []);
  const save = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await chat.edit(index, draft);
      chat.stopEditing();
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
        ref={box}
        id={`edit-${index}`}
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        rows={3}
      />
      <ErrorNotice problem={problem} />
      <div class="row-actions">
        <button type="button" class="ghost" onClick={chat.stopEditing}>
          Cancel
        </button>
        <button type="button" class="primary" disabled={busy || draft.trim() === ""} onClick={save}>
          Resend
        </button>
      </div>
    </article>
  );
}
