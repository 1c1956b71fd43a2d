// Rendering a screen test's store and clearing up after it: the `show`, `afterEach(cleanup; disposeStores)` and
// element-size block each happy-dom suite wrote out for itself.
import { cleanup, configure, render } from "@testing-library/preact";
import { h, type ComponentChild } from "preact";
import { afterEach, beforeAll } from "vitest";
import { App } from "../../../app/src/app.tsx";
import { StoreContext } from "../../../app/src/state/store.ts";
import { disposeStores, type TestStore } from "./fake-env.ts";

// A `waitFor` waits for a condition, it times nothing: its default second was too short once, on a loaded machine,
// for the chat controls' K2 and K4, so the screens' waits give up after five.
configure({ asyncUtilTimeout: 5_000 });

/** Renders `view` (by default the whole app, ready) over the test's store. */
export function show({ store }: TestStore, view: () => ComponentChild = () => h(App, { ready: true })) {
  return render(h(StoreContext.Provider, { value: store }, view()));
}

/** Unmounts what was rendered and stops every store made so far (a test that renders twice calls it between). */
export function clearScreen(): void {
  cleanup();
  disposeStores();
}

/**
 * Clears the screen after each test of the calling file. `sized` gives every element an 800x390 box first: happy-dom
 * lays nothing out, and the transcript's virtualized list renders its rows only in a scroller with a size.
 */
export function useScreens(options: { sized?: boolean } = {}): void {
  afterEach(clearScreen);
  if (!options.sized) return;
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 800 });
    Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 390 });
  });
}
