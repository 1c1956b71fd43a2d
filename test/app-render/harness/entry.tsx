// A page for the renderer's Chromium tests and screenshots: the app's own stylesheets and message layout, with
// messages given by the test (window.harness.show) and the renderer's raw output (window.harness.render).
import { render } from "preact";
import { AttachmentThumbnails } from "../../../app/src/components/image-viewer.tsx";
import { MarkdownView } from "../../../app/src/render/markdown-view.tsx";
import "../../../app/src/styles/base.css";
import "../../../app/src/styles/chat.css";
import "../../../app/src/styles/screens.css";

export interface HarnessMessage {
  role: "user" | "assistant";
  text: string;
  attachments?: unknown;
}

/** The chat screen's layout around its rows (chat-screen.tsx, message-list.tsx), without the virtualizer. */
function Transcript({ messages }: { messages: HarnessMessage[] }) {
  return (
    <div class="app">
      <div class="chat-layout">
        <section class="chat" aria-label="Chat">
          <div class="message-scroller" role="log" aria-label="Messages" tabIndex={0}>
            <div class="message-track">
              <div class="message-window">
                {messages.map((message, index) => (
                  <div class="message-row" key={index}>
                    <Row message={message} />
                  </div>
                ))}
              </div>
            </div>
          </div>
        </section>
      </div>
    </div>
  );
}

function Row({ message }: { message: HarnessMessage }) {
  if (message.role === "user") {
    return (
      <article class="message user" data-role="user" aria-label="You">
        <div class="bubble">
          <MarkdownView text={message.text} />
          <AttachmentThumbnails attachments={message.attachments} />
        </div>
      </article>
    );
  }
  return (
    <article class="message assistant" data-role="assistant" aria-label="Assistant">
      <MarkdownView text={message.text} />
      <AttachmentThumbnails attachments={message.attachments} />
    </article>
  );
}

const harness = {
  show(messages: HarnessMessage[]): void {
    render(<Transcript messages={messages} />, document.getElementById("root")!);
  },
  /** The renderer's HTML for `text`, after KaTeX has loaded when the text has math. */
  async render(text: string): Promise<string> {
    const { renderMarkdown } = await import("../../../app/src/render/markdown.ts");
    let result = renderMarkdown(text);
    if (result.mathPending) {
      await result.mathPending;
      result = renderMarkdown(text);
    }
    return result.html;
  },
};

(window as unknown as { harness: typeof harness }).harness = harness;
