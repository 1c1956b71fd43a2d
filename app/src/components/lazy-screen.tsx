// A screen loaded on first visit instead of with the first paint (docs/app.md "Speed"): the admin and history screens
// and the QR encoder they carry are not needed to chat. The service worker precaches every chunk, so a screen opens
// offline too; a chunk that cannot load (an old tab after an update) says so instead of staying blank.
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

export function lazyScreen(load: () => Promise<FunctionComponent>, name: string): FunctionComponent {
  let loaded: FunctionComponent | undefined;
  return function LazyScreen() {
    const { env } = useStore();
    const [, setReady] = useState(0);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      load().then(
        (screen) => {
          loaded = screen;
          if (live) setReady((count) => count + 1);
        },
        (error: unknown) => {
          env.report(`loading the ${name} screen failed`, error);
          if (live) setFailed(true);
        },
      );
      return () => void (live = false);
    }, []);
    const Screen = loaded;
    if (Screen) return <Screen />;
    if (failed) return <p role="alert">The {name} screen could not be loaded. Reload the page to try again.</p>;
    return <p class="muted">Loading…</p>;
  };
}
