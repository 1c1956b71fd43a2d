// The "Search chats" dialog (loaded on first open, search-launcher.tsx): a search box of that name; results show the
// chat's title and the snippet with its matches marked (<mark> around plain text, never HTML from the server);
// choosing one (a click, or Down to it then Enter) opens the chat at that message. Empty, no-result, error and
// offline states each say what to do; results found on this device while offline say so.
import { useEffect, useRef } from "preact/hooks";
import { useModal } from "../components/modal-dialog.tsx";
import { hrefOf } from "../state/router.ts";
import { useStore } from "../state/store.ts";
import { snippetPieces, type SearchResult } from "./search-api.ts";
import type { SearchView } from "./search-state.ts";
import "./search.css";

export function SearchDialog() {
  const { search } = useStore();
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useModal(dialog);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  return (
    // Escape closes from anywhere in it (in a search box Chromium would only clear the text).
    <dialog
      ref={dialog}
      class="search-dialog"
      aria-label="Search chats"
      onCancel={(event) => (event.preventDefault(), search.hide())}
      onKeyDown={(event) => {
        if (event.key === "Escape") (event.preventDefault(), search.hide());
        else if (event.key === "ArrowDown" || event.key === "ArrowUp") moveFocus(event, dialog.current);
      }}
    >
      <form
        class="search-form"
        role="search"
        onSubmit={(event) => (event.preventDefault(), void search.run(input.current?.value ?? ""))}
      >
        <input
          ref={input}
          type="search"
          aria-label="Search chats"
          placeholder="Search chats"
          maxLength={1000}
          value={search.query.value}
          onInput={(event) => void search.run(event.currentTarget.value)}
        />
        <button type="button" class="ghost" onClick={() => search.hide()}>
          Close
        </button>
      </form>
      <SearchBody view={search.view.value} />
    </dialog>
  );
}

/**
 * Down and Up move between the search box and the results (a result is a link: Enter opens it); Up from the first
 * result returns to the box. Keys the box needs (Up, Down in its own text) are taken only while results show.
 */
function moveFocus(event: KeyboardEvent, dialog: HTMLDialogElement | null): void {
  if (!dialog) return;
  const stops = [
    dialog.querySelector<HTMLElement>("input[type=search]"),
    ...dialog.querySelectorAll<HTMLElement>(".search-result"),
  ];
  if (stops.length < 2) return;
  const at = stops.indexOf(document.activeElement as HTMLElement);
  const next = event.key === "ArrowDown" ? Math.min(at + 1, stops.length - 1) : Math.max(at - 1, 0);
  event.preventDefault();
  stops[next]?.focus();
}

function SearchBody({ view }: { view: SearchView }) {
  const { search } = useStore();
  switch (view.kind) {
    case "empty":
      return (
        <p class="muted search-note">
          Type words from a message or a title. Words match in any order, and as the start of longer words.
        </p>
      );
    case "loading":
      return (
        <p class="muted search-note" role="status">
          Searching…
        </p>
      );
    case "offline":
    case "error":
      return (
        <div class="notice error search-note" role="alert">
          <p>{view.message}</p>
          <button type="button" class="secondary" onClick={() => void search.run(view.query)}>
            Try again
          </button>
        </div>
      );
    case "results":
      return (
        <>
          {view.local && (
            <p class="notice warning search-note" role="status">
              You are offline: these results are from this device, over the chats kept on it.
            </p>
          )}
          {view.results.length === 0 ? (
            <p class="search-note" role="status">
              {view.local ? `No chat kept on this device matches “${view.query}”.` : `No chat matches “${view.query}”.`}
            </p>
          ) : (
            <ul class="search-results" aria-label="Search results">
              {view.results.map((result) => (
                <ResultRow key={`${result.session_id}:${result.message_index ?? "title"}`} result={result} />
              ))}
            </ul>
          )}
        </>
      );
  }
}

function ResultRow({ result }: { result: SearchResult }) {
  const { search } = useStore();
  const open = (event: MouseEvent) => {
    event.preventDefault();
    search.openResult(result);
  };
  return (
    <li>
      <a class="search-result" href={hrefOf({ name: "chat", session_id: result.session_id })} onClick={open}>
        <span class="search-result-title">
          {result.title}
          {result.archived && <span class="search-archived"> · Archived</span>}
        </span>
        <span class="search-snippet">
          {snippetPieces(result.snippet, result.highlights).map((piece, index) =>
            piece.mark ? <mark key={index}>{piece.text}</mark> : piece.text,
          )}
        </span>
      </a>
    </li>
  );
}
