// A page for the renderer's Chromium tests and screenshots: the app's own stylesheets and the chat screen's layout
// around its rows (chat-screen.tsx, message-list.tsx, without the virtualizer), with messages given by the test
// (window.harness.show) and the renderer's raw output (window.harness.render). Plain JavaScript with preact's h():
// the repository's Node tsconfig checks test/ without JSX; Vite bundles this file and the .tsx it imports.
import { h, render } from "preact";
import { AttachmentThumbnails } from "../../../app/src/components/image-viewer.tsx";
import { MarkdownView } from "../../../app/src/render/markdown-view.tsx";
import { StoreContext } from "../../../app/src/state/store.ts";
import "../../../app/src/styles/base.css";
import "../../../app/src/styles/chat.css";
import "../../../app/src/styles/screens.css";

function row(message) {
  const body = [h(MarkdownView, { text: message.text }), h(AttachmentThumbnails, { attachments: message.attachments })];
  if (message.role === "user") {
    return h(
      "article",
      { "class": "message user", "data-role": "user", "aria-label": "You" },
      h("div", { class: "bubble" }, body),
    );
  }
  return h("article", { "class": "message assistant", "data-role": "assistant", "aria-label": "Assistant" }, body);
}

function transcript(messages) {
  const rows = messages.map((message, index) => h("div", { class: "message-row", key: index }, row(message)));
  const scroller = h(
    "div",
    { "class": "message-scroller", "role": "log", "aria-label": "Messages", "tabIndex": 0 },
    h("div", { class: "message-track" }, h("div", { class: "message-window" }, rows)),
  );
  // The view reads only the store's env (copying code, reporting a failed highlight): a store of just that.
  const env = { copyText: async () => false, report: (message, detail) => console.warn(message, detail) };
  return h(
    StoreContext.Provider,
    { value: { env } },
    h(
      "div",
      { class: "app" },
      h("div", { class: "chat-layout" }, h("section", { "class": "chat", "aria-label": "Chat" }, scroller)),
    ),
  );
}

window.harness = {
  show(messages) {
    render(transcript(messages), document.getElementById("root"));
  },
  /** The renderer's HTML for `text`, after KaTeX has loaded when the text has math. */
  async render(text) {
    const { renderMarkdown } = await import("../../../app/src/render/markdown.ts");
    let result = renderMarkdown(text);
    if (result.mathPending) {
      await result.mathPending;
      result = renderMarkdown(text);
    }
    return result.html;
  },
};
