// The message body's view lives with its renderer (app/src/render), which loads lazily.
export { MarkdownView } from "../render/markdown-view.tsx";
