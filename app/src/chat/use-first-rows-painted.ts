// When the chat screen builds what the first rows do not need (the composer's controls, the header's chat controls):
// once the chat's first read has answered, or failed, or the server was found unreachable, and the frame that shows
// it has been painted (docs/app.md "Long chats", Opening, LC13, LC16). Built with the screen, they were made, and
// their effects ran and sent their requests (the models, the speech status), between the tap and the last messages
// painted.
import { useComputed } from "@preact/signals";
import { useLayoutEffect, useState } from "preact/hooks";
import { afterPaint, defaultFrames } from "../state/frames.ts";
import type { Chat } from "../state/chat.ts";

/** False until the chat's first answer (or its failure) is painted; then true for the screen's life. */
export function useFirstRowsPainted(chat: Chat): boolean {
  // A computed flag: the component renders again when it turns, not at each frame of a streamed reply.
  const settled = useComputed(() => !chat.view.value.loading || chat.view.value.error !== undefined).value;
  const [painted, setPainted] = useState(false);
  // Scheduled in the commit that put the answer in the page, so it runs once that very frame is painted.
  useLayoutEffect(() => {
    if (painted || !settled) return;
    return afterPaint(defaultFrames(), () => setPainted(true));
  }, [painted, settled]);
  return painted;
}
