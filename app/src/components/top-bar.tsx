// The bar on top of every paired screen: the app's name (home), the connection state, and the menu. The menu is a
// list of entries (another screen adds its own line here), then this device's settings while paired.
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";
import { COMPOSER_INPUT_ID } from "./composer.tsx";
import { ConnectionBadge } from "./connection-badge.tsx";
import { lazyComponent } from "./lazy-component.tsx";
import { SearchLauncher } from "../search/search-launcher.tsx";
import { ErrorNotice } from "./error-notice.tsx";
import { UnpairDialog } from "./unpair-dialog.tsx";

const NotificationsToggle = lazyComponent(
  () => import("./notifications-toggle.tsx"),
  "NotificationsToggle",
  "notification switch",
);
const ShortcutsDialog = lazyComponent(() => import("./shortcuts-dialog.tsx"), "ShortcutsDialog", "shortcuts list");

export function TopBar() {
  const { connection, people, router } = useStore();
  const paired = connection.paired.value;
  const [menuOpen, setMenuOpen] = useState(false);
  // Any change of screen closes the menu: its own links do on click, but the address bar, back, a shortcut or a
  // screen's own link would leave it open over the next screen. A subscription, so the bar does not redraw per route.
  useEffect(() => router.route.subscribe(() => setMenuOpen(false)), [router]);
  const [dialog, setDialog] = useState<"shortcuts" | "unpair" | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <header class="top-bar">
      {/* The route lives in the hash, so the link moves focus itself instead of changing the address. */}
      <a
        class="skip-link"
        href="#composer"
        onClick={(event) => (event.preventDefault(), document.getElementById(COMPOSER_INPUT_ID)?.focus())}
      >
        Skip to message box
      </a>
      <a class="brand" href="#/">
        <img src="./icons/icon.svg" alt="" width="28" height="28" />
        <span>Chat Relay</span>
      </a>
      {paired && <ConnectionBadge />}
      {paired && <SearchLauncher />}
      <details
        class="menu"
        open={menuOpen}
        onToggle={(event) => setMenuOpen((event.currentTarget as HTMLDetailsElement).open)}
      >
        <summary class="icon-button" aria-label="Menu">
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M4 7h16M4 12h16M4 17h16" />
          </svg>
        </summary>
        <div class="menu-panel">
          <nav aria-label="Menu" onClick={() => setMenuOpen(false)}>
            <a href="#/">Chats</a>
            <a href="#/archived">Archived</a>
            <a href="#/history">Notification history</a>
            <a href="#/settings/personal">Settings</a>
            {people.isAdmin.value && <a href="#/people">People</a>}
            <a href="#/devices">{people.me.value ? "Devices" : "Devices (admin)"}</a>
            <button type="button" onClick={() => setDialog("shortcuts")}>
              Keyboard shortcuts
            </button>
            {paired && (
              <button type="button" onClick={() => setDialog("unpair")}>
                Unpair this device
              </button>
            )}
          </nav>
          {/* Mounted only while the menu is open: it asks the server for its push key. */}
          {paired && menuOpen && <NotificationsToggle client={paired.client} />}
        </div>
      </details>
      <ErrorNotice problem={problem} class="header-problem" />
      {dialog === "shortcuts" && <ShortcutsDialog onClose={() => setDialog(undefined)} />}
      {dialog === "unpair" && <UnpairDialog onClose={() => setDialog(undefined)} onProblem={setProblem} />}
    </header>
  );
}
