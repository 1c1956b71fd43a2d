// An admin's screen (People, Audit log): "Loading…" until the app knows who this device's person is, then the screen
// for an admin, or for anyone else its title and one sentence saying the screen is an admin's.
import type { FunctionComponent } from "preact";
import { useStore } from "../state/store.ts";

/** The screen `Screen` behind the gate: `refusal` is what a member is told instead, under `title`. */
export function adminScreen(title: string, refusal: string, Screen: FunctionComponent): FunctionComponent {
  return function AdminOnly() {
    const { people } = useStore();
    if (people.me.value === undefined) return <p class="page muted">Loading…</p>;
    if (!people.isAdmin.value)
      return (
        <main class="page people">
          <h1>{title}</h1>
          <p class="notice warning">{refusal}</p>
        </main>
      );
    return <Screen />;
  };
}
