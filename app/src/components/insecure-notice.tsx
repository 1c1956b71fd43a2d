// Said once, plainly, on a plain http: origin that is not localhost (a phone on the LAN): the app works, but the
// browser keeps offline use, installing and notifications for HTTPS. docs/https.md shows the two usual ways.
import { useStore } from "../state/store.ts";

export function InsecureNotice() {
  const store = useStore();
  if (!store.insecureNotice.value) return null;
  return (
    <section class="notice warning insecure-notice" aria-label="About this connection">
      <p>
        This page is served over plain http, so this browser allows no offline use, no installing and no notifications
        here. Everything else works. To get them, serve the app over HTTPS (a reverse proxy such as Caddy, or tailscale
        serve): see docs/https.md in the project.
      </p>
      <button type="button" class="secondary" onClick={() => store.dismissInsecureNotice()}>
        Got it
      </button>
    </section>
  );
}
