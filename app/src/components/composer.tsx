// The message composer: a textbox named "Message" and a "Send" button (docs/app.md "Chat"); Enter sends, Shift+Enter is
// a new line. Attachments by pick, paste or link, refused before upload with the reason. While a reply
// streams, "Stop" cancels it. A failed send keeps the text and the attachments and says why.
import { useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { AgentView as Agent } from "../../../client/index.ts";
import { pendingFile, pendingUrl, release, type PendingAttachment } from "../attachments/pending.ts";
import { refuseFile, refuseUrl } from "../attachments/rules.ts";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import { usePromptPicker } from "./prompt-picker.tsx";

interface Props {
  agent: Agent | undefined;
  streaming: boolean;
  /** Why the composer is read-only (offline), or undefined. */
  readOnly?: string;
  onSend: (text: string, attachments: PendingAttachment[]) => Promise<void>;
  onCancel: () => void;
  /** Controls shown beside the composer (model picker, request options). */
  tools?: ComponentChildren;
  /** Up arrow in the empty composer: edit the last message of the user. */
  onEditLast?: () => void;
}

/** The composer's text box: the skip link's target. */
export const COMPOSER_INPUT_ID = "composer";

export function Composer({ agent, streaming, readOnly, onSend, onCancel, tools, onEditLast }: Props) {
  const { connection } = useStore();
  const [text, setText] = useState("");
  const [attachments, setAttachments] = useState<PendingAttachment[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  const [linkOpen, setLinkOpen] = useState(false);
  // On a phone the model and option pickers fold behind a button, so the empty composer is one row.
  const wide = useWideScreen();
  const [toolsOpen, setToolsOpen] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const addFiles = (files: Iterable<File>) => {
    for (const file of files) {
      const refusal = refuseFile(file, agent);
      if (refusal) return setProblem(refusal);
      setAttachments((list) => [...list, pendingFile(file)]);
    }
    setProblem(undefined);
  };
  const send = async () => {
    if (sending || streaming || readOnly || (text.trim() === "" && attachments.length === 0)) return;
    setSending(true);
    setProblem(undefined);
    try {
      await onSend(text, attachments);
      attachments.forEach(release);
      setText("");
      setAttachments([]);
    } catch (error) {
      setProblem(`Not sent: ${describeError(error, connection.badge.value)} Your message is still here; try again.`);
    } finally {
      setSending(false);
    }
  };
  const prompts = usePromptPicker(text, setText);
  const onKeyDown = (event: KeyboardEvent) => {
    if (prompts.onKeyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    } else if (event.key === "ArrowUp" && text === "" && onEditLast && !event.isComposing) {
      event.preventDefault();
      onEditLast();
    }
  };
  const onPaste = (event: ClipboardEvent) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length > 0) {
      event.preventDefault();
      addFiles(files);
    }
  };

  return (
    <form class="composer" onSubmit={(event) => (event.preventDefault(), void send())}>
      {tools && (wide || toolsOpen) && (
        <div class="composer-tools" id="composer-tools">
          {tools}
        </div>
      )}
      {prompts.element}
      {attachments.length > 0 && (
        <AttachmentTray
          attachments={attachments}
          onRemove={(id) => setAttachments((list) => list.filter((a) => (a.id === id ? (release(a), false) : true)))}
        />
      )}
      {linkOpen && (
        <LinkField
          onAdd={(url) => {
            const refusal = refuseUrl(url, agent);
            if (refusal) return setProblem(refusal);
            setAttachments((list) => [...list, pendingUrl(url)]);
            setLinkOpen(false);
            setProblem(undefined);
          }}
          onClose={() => setLinkOpen(false)}
        />
      )}
      {problem && (
        <p class="composer-problem" role="alert">
          {problem}
        </p>
      )}
      {readOnly && <p class="composer-readonly">{readOnly}</p>}
      <div class="composer-row">
        <button
          type="button"
          class="icon-button"
          aria-label="Attach an image"
          title="Attach an image"
          disabled={!!readOnly}
          onClick={() => fileInput.current?.click()}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M16.5 6.5 8 15a2 2 0 1 0 2.8 2.8l8.5-8.5a4 4 0 0 0-5.7-5.7L5 12.2a6 6 0 0 0 8.5 8.5L20 14" />
          </svg>
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label="Attach an image link"
          title="Attach an image link"
          disabled={!!readOnly}
          onClick={() => setLinkOpen(!linkOpen)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
          </svg>
        </button>
        {tools && !wide && (
          <button
            type="button"
            class="icon-button tools-toggle"
            aria-label="Chat options"
            title="Model and options"
            aria-expanded={toolsOpen}
            aria-controls="composer-tools"
            onClick={() => setToolsOpen(!toolsOpen)}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <path d="M4 7h10M18 7h2M4 17h4M12 17h8" />
              <circle cx="16" cy="7" r="2" />
              <circle cx="10" cy="17" r="2" />
            </svg>
          </button>
        )}
        <input
          ref={fileInput}
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          multiple
          hidden
          onChange={(event) => (addFiles(event.currentTarget.files ?? []), (event.currentTarget.value = ""))}
        />
        <textarea
          class="composer-input"
          id={COMPOSER_INPUT_ID}
          aria-label="Message"
          placeholder={readOnly ? "Offline" : "Message"}
          rows={1}
          value={text}
          disabled={!!readOnly}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        {streaming ? (
          <button type="button" class="send stop" aria-label="Stop" title="Stop the reply" onClick={onCancel}>
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <rect x="7" y="7" width="10" height="10" rx="2" />
            </svg>
          </button>
        ) : (
          <button type="submit" class="send" aria-label="Send" title="Send (Enter)" disabled={sending || !!readOnly}>
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <path d="M4 12 20 4l-6 16-2-7z" />
            </svg>
          </button>
        )}
      </div>
    </form>
  );
}

function AttachmentTray({
  attachments,
  onRemove,
}: {
  attachments: PendingAttachment[];
  onRemove: (id: string) => void;
}) {
  return (
    <ul class="attachment-tray" aria-label="Attachments">
      {attachments.map((attachment) => (
        <li key={attachment.id}>
          {attachment.kind === "file" ? (
            <img src={attachment.preview} alt={attachment.file.name} />
          ) : (
            <span class="link-chip">{attachment.url}</span>
          )}
          <button type="button" class="remove" aria-label="Remove attachment" onClick={() => onRemove(attachment.id)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

function LinkField({ onAdd, onClose }: { onAdd: (url: string) => void; onClose: () => void }) {
  const [url, setUrl] = useState("");
  return (
    <div class="link-field">
      <input
        type="url"
        aria-label="Image link"
        placeholder="https://example.com/picture.png"
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
      <button type="button" class="secondary" onClick={() => onAdd(url.trim())}>
        Add
      </button>
      <button type="button" class="ghost" aria-label="Close image link" onClick={onClose}>
        ×
      </button>
    </div>
  );
}
