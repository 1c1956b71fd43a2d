// Entry: make the store, render, restore a stored pairing (or take a pairing link), and register the service worker
// that keeps the app shell for offline use, where the browser has one (a plain http: LAN origin does not).
// First: starts reading the cached list while the other modules are evaluated (it imports one constant).
import "./early-head.ts";
// Second: zod told there is no eval here, before any module builds a schema.
import "./no-eval.ts";
import { render } from "preact";
import { App } from "./app.tsx";
import { loadRendererWhenIdle } from "./render/renderer-chunk.ts";
import { afterNextPaint } from "./state/frames.ts";
import { browserEnv } from "./state/env.ts";
import { forgetOnRevokedMessage } from "./state/unpair.ts";
import { createStore, StoreContext } from "./state/store.ts";
import "./styles/base.css";
import "./styles/chat.css";
import "./styles/screens.css";

const store = createStore(browserEnv());
const root = document.getElementById("root")!;
const show = (ready: boolean) =>
  render(
    <StoreContext.Provider value={store}>
      <App ready={ready} />
    </StoreContext.Provider>,
    root,
  );
show(false);
/** The ready app; the markdown renderer loaded once the page is idle after its paint (SU19). */
const showReady = () => {
  show(true);
  afterNextPaint(loadRendererWhenIdle);
};
// The people directory's requests and the outbox's code wait for the first paint (SU10).
store.start(afterNextPaint).then(showReady, (error: unknown) => {
  store.env.report("starting the app failed", error);
  showReady();
});

if (navigator.serviceWorker) forgetOnRevokedMessage(navigator.serviceWorker, store.connection);

if (navigator.serviceWorker && location.protocol !== "file:") {
  addEventListener("load", () =>
    navigator.serviceWorker
      .register("./sw.js")
      .catch((error: unknown) => store.env.report("the service worker could not be registered", error)),
  );
}
