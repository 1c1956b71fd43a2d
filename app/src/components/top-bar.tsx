// The bar on top of every paired screen: the app's name (home), the connection state, and the menu.
import { useStore } from "../state/store.ts";
import { ConnectionBadge } from "./connection-badge.tsx";
import { SearchLauncher } from "../search/search-launcher.tsx";

export function TopBar() {
  const { connection, env } = useStore();
  const paired = connection.paired.value;
  const unpair = () => {
    if (!env.confirm("Unpair this device? Its chats are removed from this browser, and you will need a new pairing code to connect again.")) return;
    connection.forget(false).catch((error: unknown) => env.report("unpairing failed", error));
  };
  return (
    <header class="top-bar">
      <a class="brand" href="#/">
        <img src="./icons/icon.svg" alt="" width="28" height="28" />
        <span>Chat Relay</span>
      </a>
      {paired && <ConnectionBadge />}
      {paired && <SearchLauncher />}
      <details class="menu">
        <summary class="icon-button" aria-label="Menu">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h16M4 12h16M4 17h16" /></svg>
        </summary>
        <nav class="menu-panel" aria-label="Menu" onClick={(event) => ((event.currentTarget.parentElement as HTMLDetailsElement).open = false)}>
          <a href="#/">Chats</a>
          <a href="#/history">Notification history</a>
          <a href="#/devices">Devices (admin)</a>
          {paired && (
            <button type="button" onClick={unpair}>
              Unpair this device
            </button>
          )}
        </nav>
      </details>
    </header>
  );
}
