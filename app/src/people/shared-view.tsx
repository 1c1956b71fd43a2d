// A shared chat (`#/shared/<token>.<key>`, no pairing): "Shared chat · read only", its title, and the snapshot's
// messages drawn by the chat's own parts (the same markdown renderer, which turns no message into HTML of its own,
// thinking, tool calls and results, image thumbnails from the snapshot's data URLs, writers' names), without the
// controls a paired device has. A revoked, expired or unknown link says so in one sentence (shared-chat.ts).
import { useEffect, useState } from "preact/hooks";
import type { Message, SharedSnapshot } from "../../../client/index.ts";
import { AttachmentThumbnails } from "../components/image-viewer.tsx";
import { interruptionOf, ReplyArticle } from "../components/message-item.tsx";
import { ToolCalls, ToolMessage } from "../components/tool-message.tsx";
import { MarkdownView } from "../render/markdown-view.tsx";
import { useStore } from "../state/store.ts";
import { DAMAGED_TEXT, GONE_TEXT, openSharedChat, type SharedChatState } from "./shared-chat.ts";
import { senderOf } from "./sender-name.tsx";
import "./people.css";

export function SharedView({ link }: { link: string }) {
  const { env } = useStore();
  const [shown, setShown] = useState<SharedChatState>({ state: "loading" });
  useEffect(() => {
    let live = true;
    setShown({ state: "loading" });
    void openSharedChat(link, env).then((next) => live && setShown(next));
    return () => void (live = false);
  }, [link]);
  return (
    <div class="app shared-chat">
      <header class="top-bar shared-head">
        <p class="shared-kind">Shared chat · read only</p>
        {shown.state === "ready" && <h1>{shown.snapshot.title.trim() || "New chat"}</h1>}
      </header>
      <main class="shared-body">
        {shown.state === "loading" && <p class="muted page">Loading…</p>}
        {shown.state === "gone" && <Notice text={GONE_TEXT} />}
        {shown.state === "damaged" && <Notice text={DAMAGED_TEXT} />}
        {shown.state === "failed" && <Notice text={shown.message} />}
        {shown.state === "ready" && <SharedTranscript snapshot={shown.snapshot} />}
      </main>
    </div>
  );
}

function Notice({ text }: { text: string }) {
  return (
    <p class="notice warning page" role="alert">
      {text}
    </p>
  );
}

function SharedTranscript({ snapshot }: { snapshot: SharedSnapshot }) {
  const writers = new Set(snapshot.messages.filter((m) => m.role === "user").map((m) => senderOf(m)?.person_id ?? ""));
  const sharedAt = new Date(snapshot.shared_at);
  return (
    <>
      <p class="muted small shared-meta">
        {snapshot.owner_name ? `Shared by ${snapshot.owner_name}` : "Shared"}
        {Number.isNaN(sharedAt.getTime())
          ? ""
          : ` on ${sharedAt.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}`}
      </p>
      <div class="shared-transcript" role="log" aria-label="Messages">
        {snapshot.messages.map((message, index) => (
          <div class="message-row" key={index}>
            <SharedMessage message={message} namedWriters={writers.size > 1} />
          </div>
        ))}
      </div>
    </>
  );
}

function SharedMessage({ message, namedWriters }: { message: Message; namedWriters: boolean }) {
  if (message.role === "tool") return <ToolMessage message={message} />;
  const metadata = message.metadata;
  if (message.role === "user") {
    const sender = namedWriters ? senderOf(message) : undefined;
    return (
      <article class="message user" data-role="user" aria-label={sender?.name ?? "User"}>
        <div class="bubble">
          {sender && <span class="message-sender">{sender.name}</span>}
          <MarkdownView text={message.content} />
          <AttachmentThumbnails attachments={metadata?.attachments} />
        </div>
      </article>
    );
  }
  const interrupted = interruptionOf(metadata);
  return (
    <ReplyArticle message={message}>
      {message.content !== "" && <MarkdownView text={message.content} />}
      <ToolCalls metadata={metadata} />
      {interrupted && <p class="interrupted">{interrupted}</p>}
    </ReplyArticle>
  );
}
