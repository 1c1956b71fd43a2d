// The message composer: a textbox named "Message" and a "Send" button (docs/app.md "Chat"); Enter sends, Shift+Enter is
// a new line, Up in the empty box edits the last message, "/" at the start opens the prompt library (prompt-picker.tsx).
// Attachments by pick, paste or link, refused before upload with the reason. While a reply streams, "Stop" cancels it. A failed send keeps the text and the attachments and
// says why. The draft and the sending are the chat controller's (state/chat-draft.ts); this is its view. The controls
// are one row (`composer-row`), each its own component: a new control is one more entry there. The box and Send are
// built with the screen; the other controls once the chat's first rows are painted, in slots kept their size until
// then, so the transcript does not move when they come (docs/app.md "Long chats", Opening, LC13).
import { useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { PendingAttachment } from "../attachments/pending.ts";
import { useFirstRowsPainted } from "../chat/use-first-rows-painted.ts";
import { useChat } from "../state/chat-context.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import { ConversationMode, Dictate } from "../voice/lazy-voice.tsx";
import { ATTACH_ACCEPT } from "../documents/document-files.ts";
import { fileDropProps } from "../documents/file-drop.ts";
import { LibrarySlot, PendingDocumentChip, SharedIntake } from "../documents/lazy-documents.tsx";
import { IconButton } from "./icon-button.tsx";
import { usePromptPicker, type PromptPicker } from "./prompt-picker.tsx";

/** The composer's text box: the skip link's target. */
export const COMPOSER_INPUT_ID = "composer";

interface Props {
  /** Controls shown beside the composer (model picker, request options); folded behind a button on a phone. */
  tools?: ComponentChildren;
}

export function Composer({ tools }: Props) {
  const chat = useChat();
  const { draft, readOnly, offlineNote } = chat;
  const controls = useFirstRowsPainted(chat);
  const [linkOpen, setLinkOpen] = useState(false);
  // On a phone the model and option pickers fold behind a button, so the empty composer is one row.
  const wide = useWideScreen();
  const [toolsOpen, setToolsOpen] = useState(false);
  const attachments = draft.attachments.value;
  const prompts = usePromptPicker(draft.text.value, draft.setText);
  return (
    <form
      class="composer"
      onSubmit={(event) => (event.preventDefault(), void draft.submit())}
      {...fileDropProps(draft.addFiles)}
    >
      {tools && wide && !controls && <div class="composer-tools slot" aria-hidden="true" />}
      {tools && controls && (wide || toolsOpen) && (
        <div class="composer-tools" id="composer-tools">
          {!wide && <LinkButton onToggle={() => setLinkOpen(!linkOpen)} />}
          {tools}
        </div>
      )}
      {prompts.element}
      {attachments.length > 0 && <AttachmentTray attachments={attachments} onRemove={draft.removeAttachment} />}
      {linkOpen && (
        <LinkField onAdd={(url) => draft.addUrl(url) && setLinkOpen(false)} onClose={() => setLinkOpen(false)} />
      )}
      {draft.problem.value && (
        <p class="composer-problem" role="alert">
          {draft.problem.value}
        </p>
      )}
      {(readOnly.value ?? offlineNote.value) && <p class="composer-readonly">{readOnly.value ?? offlineNote.value}</p>}
      {controls && <LibrarySlot />}
      <SharedIntake />
      <div class="composer-row">
        {controls ? <AttachButton /> : <ControlSlot />}
        {/* On a phone the image link waits in the options panel, so the row keeps room to type beside the voice controls. */}
        {(wide || !tools) && (controls ? <LinkButton onToggle={() => setLinkOpen(!linkOpen)} /> : <ControlSlot />)}
        {tools &&
          !wide &&
          (controls ? <ToolsToggle open={toolsOpen} onToggle={() => setToolsOpen(!toolsOpen)} /> : <ControlSlot />)}
        {controls && <VoiceDictation />}
        <MessageInput prompts={prompts} />
        {controls && <VoiceConversation />}
        <SendOrStop />
      </div>
    </form>
  );
}

/** A control's place, its size, until the control is built. */
function ControlSlot() {
  return <span class="control-slot" aria-hidden="true" />;
}

/** Dictation's text lands in the draft, after what is typed, to check and send (docs/voice.md). */
function VoiceDictation() {
  const { draft, readOnly } = useChat();
  const add = (said: string) => {
    const typed = draft.text.value;
    draft.setText(typed.trim() ? `${typed.trimEnd()} ${said}` : said);
  };
  return <Dictate disabled={!!readOnly.value} onText={add} />;
}

/** Conversation mode sends each turn as a message of this chat (docs/voice.md "Conversation mode"). */
function VoiceConversation() {
  const chat = useChat();
  return <ConversationMode disabled={!!chat.readOnly.value} send={(said) => chat.send(said, [])} />;
}

function AttachButton() {
  const { draft, readOnly } = useChat();
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <IconButton
        label="Attach a file"
        title="Attach an image or a document (or type # for your documents)"
        disabled={!!readOnly.value}
        onClick={() => fileInput.current?.click()}
      >
        <path d="M16.5 6.5 8 15a2 2 0 1 0 2.8 2.8l8.5-8.5a4 4 0 0 0-5.7-5.7L5 12.2a6 6 0 0 0 8.5 8.5L20 14" />
      </IconButton>
      <input
        ref={fileInput}
        type="file"
        accept={ATTACH_ACCEPT}
        multiple
        hidden
        onChange={(event) => (draft.addFiles(event.currentTarget.files ?? []), (event.currentTarget.value = ""))}
      />
    </>
  );
}

function LinkButton({ onToggle }: { onToggle: () => void }) {
  const { readOnly } = useChat();
  return (
    <IconButton
      label="Attach an image link"
      title="Attach an image link"
      disabled={!!readOnly.value}
      onClick={onToggle}
    >
      <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
    </IconButton>
  );
}

function ToolsToggle({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      class="icon-button tools-toggle"
      aria-label="Chat options"
      title="Model and options"
      aria-expanded={open}
      aria-controls="composer-tools"
      onClick={onToggle}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <path d="M4 7h10M18 7h2M4 17h4M12 17h8" />
        <circle cx="16" cy="7" r="2" />
        <circle cx="10" cy="17" r="2" />
      </svg>
    </button>
  );
}

function MessageInput({ prompts }: { prompts: PromptPicker }) {
  const chat = useChat();
  const { draft, readOnly } = chat;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing || prompts.onKeyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void draft.submit();
    } else if (event.key === "ArrowUp" && draft.text.value === "" && chat.editLast()) event.preventDefault();
  };
  const onPaste = (event: ClipboardEvent) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    draft.addFiles(files);
  };
  return (
    <textarea
      class="composer-input"
      id={COMPOSER_INPUT_ID}
      aria-label="Message"
      placeholder={readOnly.value ? "Read only" : "Message"}
      rows={1}
      value={draft.text.value}
      disabled={!!readOnly.value}
      onInput={(event) => draft.setText(event.currentTarget.value)}
      onKeyDown={onKeyDown}
      onPaste={onPaste}
    />
  );
}

function SendOrStop() {
  const { draft, readOnly, streaming, cancel } = useChat();
  if (streaming.value)
    return (
      <button type="button" class="send stop" aria-label="Stop" title="Stop the reply" onClick={cancel}>
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <rect x="7" y="7" width="10" height="10" rx="2" />
        </svg>
      </button>
    );
  return (
    <button
      type="submit"
      class="send"
      aria-label="Send"
      title="Send (Enter)"
      disabled={draft.sending.value || !!readOnly.value}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <path d="M4 12 20 4l-6 16-2-7z" />
      </svg>
    </button>
  );
}

function AttachmentTray({
  attachments,
  onRemove,
}: {
  attachments: readonly PendingAttachment[];
  onRemove: (id: string) => void;
}) {
  return (
    <ul class="attachment-tray" aria-label="Attachments">
      {attachments.map((attachment) => (
        <li key={attachment.id} class={attachment.kind === "document" ? "document" : undefined}>
          {attachment.kind === "document" ? (
            <PendingDocumentChip document={attachment} onRemove={() => onRemove(attachment.id)} />
          ) : attachment.kind === "file" ? (
            <img src={attachment.preview} alt={attachment.file.name} />
          ) : (
            <span class="link-chip">{attachment.url}</span>
          )}
          {attachment.kind !== "document" && (
            <button type="button" class="remove" aria-label="Remove attachment" onClick={() => onRemove(attachment.id)}>
              ×
            </button>
          )}
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
