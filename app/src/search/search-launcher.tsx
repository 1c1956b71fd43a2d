// "Search chats" on the top bar: the button and Ctrl/Cmd+K open the search. The dialog and its styles are loaded on
// first open, so they cost the app's first load nothing (docs/app.md "Search").
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

/** Ctrl+K (Cmd+K on a Mac) opens the search from anywhere in the app. */
export function isSearchShortcut(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k";
}

export function SearchLauncher() {
  const { search, env } = useStore();
  const [Dialog, setDialog] = useState<FunctionComponent | undefined>();
  const open = search.open.value;
  useEffect(() => {
    if (!open || Dialog) return;
    import("./search-dialog.tsx").then(
      (loaded) => setDialog(() => loaded.SearchDialog),
      (error: unknown) => (env.report("loading the search failed", error), search.hide()),
    );
  }, [open]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      event.preventDefault();
      search.show();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [search]);
  return (
    <>
      <button
        type="button"
        class="icon-button search-button"
        aria-label="Search chats"
        aria-keyshortcuts="Control+K Meta+K"
        title="Search chats (Ctrl/Cmd+K)"
        onClick={() => search.show()}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <circle cx="11" cy="11" r="6.5" />
          <path d="m16 16 4.5 4.5" />
        </svg>
      </button>
      {search.open.value && Dialog && <Dialog />}
    </>
  );
}
