// The voice controls' one lazy chunk (docs/voice.md "In the app"): loaded when a composer or a reply first shows, so
// the first paint carries none of the recorder, the speaker or the Markdown-to-speech code.
import "./voice.css";

export { DictateButton } from "./dictate-button.tsx";
export { ReadAloudButton } from "./read-aloud-button.tsx";
export { ConversationButton } from "./conversation-button.tsx";
