// The app's keyboard shortcuts, bound once on the document. Esc (stop a reply) and Up (edit the last message) belong
// to the composer, which handles them itself; they are listed here so "Keyboard shortcuts" shows them all.
import type { Router } from "./router.ts";

export const SHORTCUTS = [
  { keys: "Mod+K", does: "Search chats" },
  { keys: "Mod+Shift+O", does: "New chat" },
  { keys: "Esc", does: "Stop the reply being written" },
  { keys: "↑ (empty message box)", does: "Edit your last message" },
  { keys: "Enter", does: "Send" },
  { keys: "Shift+Enter", does: "New line" },
] as const;

/** Binds the global shortcuts; returns the function that unbinds them. */
export function bindShortcuts(
  target: Pick<Document, "addEventListener" | "removeEventListener">,
  router: Router,
): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    const key = event.key.toLowerCase();
    if (event.shiftKey && key === "o") {
      event.preventDefault();
      router.navigate({ name: "new_chat" });
    } else if (!event.shiftKey && key === "k") {
      // The search screen (#/search) is another part of the app; this only opens its route.
      event.preventDefault();
      router.navigate({ name: "search" });
    }
  };
  target.addEventListener("keydown", onKey as EventListener);
  return () => target.removeEventListener("keydown", onKey as EventListener);
}
