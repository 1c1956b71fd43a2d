// @vitest-environment happy-dom
// The chat screen's controller started as the screen renders (app/src/chat/use-started-at-render.ts; docs/app.md LC14):
// it is stopped when the screen goes, when the screen shows another chat, and when the render that started it never
// reaches the page (it threw, in the screen or in a child), which runs no effect of that render.
import { cleanup, render } from "@testing-library/preact";
import { Component, h, type ComponentChildren } from "preact";
import { afterEach, describe, expect, it } from "vitest";
import { useStartedAtRender, type Startable } from "../../app/src/chat/use-started-at-render.ts";

afterEach(cleanup);

/** A controller that counts its starts and stops. */
function counted(): Startable & { starts: number; stops: number } {
  const chat = {
    starts: 0,
    stops: 0,
    start: () => (chat.starts++, () => void chat.stops++),
  };
  return chat;
}

/** Shows "failed" instead of a child tree that threw. */
class Boundary extends Component<{ children?: ComponentChildren }, { failed: boolean }> {
  override state = { failed: false };
  static override getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? h("p", {}, "failed") : this.props.children;
  }
}

function Screen({ chat, fails }: { chat: Startable; fails?: "here" | "in a child" }) {
  useStartedAtRender(chat);
  if (fails === "here") throw new Error("the screen's render failed");
  return h("main", {}, fails === "in a child" ? h(Failing, {}) : "the chat");
}

function Failing(): never {
  throw new Error("a child's render failed");
}

/** After the microtasks the render queued: its check that it reached the page has run. */
const settled = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("a chat started as its screen renders (LC14)", () => {
  it("runs while the screen shows it, and stops once when it goes", async () => {
    const chat = counted();
    const { getByText, unmount } = render(h(Screen, { chat }));
    await settled();
    expect(getByText("the chat")).toBeTruthy();
    expect([chat.starts, chat.stops]).toEqual([1, 0]);
    unmount();
    expect([chat.starts, chat.stops]).toEqual([1, 1]);
  });

  it("stops the chat it showed when the screen shows another", async () => {
    const first = counted();
    const second = counted();
    const { rerender } = render(h(Screen, { chat: first }));
    rerender(h(Screen, { chat: second }));
    await settled();
    expect([first.starts, first.stops, second.starts, second.stops]).toEqual([1, 1, 1, 0]);
  });

  it.each(["here", "in a child"] as const)("stops the chat when the screen's render throws %s", async (fails) => {
    const chat = counted();
    const { findByText } = render(h(Boundary, {}, h(Screen, { chat, fails })));
    expect(await findByText("failed")).toBeTruthy();
    await settled();
    expect([chat.starts, chat.stops]).toEqual([1, 1]);
  });
});
