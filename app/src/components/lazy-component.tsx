// A screen or a menu's part loaded on first use instead of with the first paint (docs/app.md "Speed"): the admin,
// history and archive screens (and the QR encoder they carry), the notification switch and the shortcuts list are not
// needed to chat. The service worker precaches every chunk, so they open offline too; a chunk that cannot load (an
// old tab after an update) says so instead of staying blank.
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

/**
 * The component a module exports as `exportName`, that module fetched by `load` (a dynamic import) on its first
 * render; `name` is what a failure calls it. It takes the props the real one takes and passes them on.
 */
export function lazyComponent<M, K extends keyof M>(load: () => Promise<M>, exportName: K, name: string): M[K] {
  return lazyLoaded(() => load().then((module) => module[exportName] as FunctionComponent<object>), name) as M[K];
}

function lazyLoaded<P extends object>(load: () => Promise<FunctionComponent<P>>, name: string): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  return function LazyComponent(props: P) {
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
          env.report(`loading the ${name} failed`, error);
          if (live) setFailed(true);
        },
      );
      return () => void (live = false);
    }, []);
    const Screen = loaded;
    if (Screen) return <Screen {...props} />;
    if (failed) return <p role="alert">The {name} could not be loaded. Reload the page to try again.</p>;
    return <p class="muted">Loading…</p>;
  };
}
