// A message's row as a fast scroll mounts it past the frame's row budget (render/scroll-pacing.ts): the same frame
// (an article of its role, named as the full row names it), its text as written and an empty bar where its toolbar
// comes (`data-sketch` marks it); no hooks, no signals, no listeners, so mounting a screen of them costs little more than their text's layout.
// The full row (message-item.tsx) replaces it once the page is still.
import type { Message } from "../../../client/index.ts";

/** The roles a row can be sketched for: a tool result has its own frame and mounts in full. */
export function sketchable(message: Message): boolean {
  return message.role === "user" || message.role === "assistant" || message.role === "system";
}

export function MessageSketch({ message }: { message: Message }) {
  const text = message.content === "" ? null : <div class="markdown markdown-source">{message.content}</div>;
  if (message.role === "user")
    return (
      <article class="message user" data-role="user" aria-label="You" data-sketch="">
        <div class="bubble">{text}</div>
        <div class="message-menu pending" />
      </article>
    );
  return (
    <article
      class={`message ${message.role}`}
      data-role={message.role}
      aria-label={message.role === "assistant" ? "Assistant" : "System"}
      data-sketch=""
    >
      {text}
      <div class="message-menu pending" />
    </article>
  );
}
