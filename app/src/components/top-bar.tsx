// The bar on top of every paired screen: the app's name (home), the connection state, and the menu.
import { ConnectionBadge } from "./connection-badge.tsx";
import { forget, paired } from "../state/connection.ts";
import { navigate } from "../state/router.ts";
import { clearSessionCache } from "../state/sessions.ts";

export function TopBar() {
  const unpair = async () => {
    if (!confirm("Unpair this device? You will need a new pairing code to connect again.")) return;
    await forget(false);
    clearSessionCache();
    navigate({ name: "pair" }, { replace: true });
  };
  return (
    <header class="top-bar">
      <a class="brand" href="#/">
        <img src="./icons/icon.svg" alt="" width="28" height="28" />
        <span>Chat Relay</span>
      </a>
      {paired.value && <ConnectionBadge />}
      <details class="menu">
        <summary class="icon-button" aria-label="Menu">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h16M4 12h16M4 17h16" /></svg>
        </summary>
        <nav class="menu-panel" aria-label="Menu" onClick={(event) => ((event.currentTarget.parentElement as HTMLDetailsElement).open = false)}>
          <a href="#/">Chats</a>
          <a href="#/history">Notification history</a>
          <a href="#/devices">Devices (admin)</a>
          {paired.value && (
            <button type="button" onClick={unpair}>
              Unpair this device
            </button>
          )}
        </nav>
      </details>
    </header>
  );
}
