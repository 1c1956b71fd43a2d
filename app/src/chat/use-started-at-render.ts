// The chat screen's controller started as the screen renders (docs/app.md "Long chats", Opening, LC11, LC14): its
// first read is on its way while the header, the composer and the transcript are built and put in the page. Started
// in a layout effect (after all of them), it left 40-70 ms later on a phone (CPU throttled 4x), time the open then
// waited for the answer.
import { useLayoutEffect, useRef } from "preact/hooks";

/** What can be started and stopped: a chat's controller (state/chat.ts). */
export interface Startable {
  start(): () => void;
}

interface Started {
  chat: Startable;
  stop: () => void;
  /** The render that started it was put in the page. */
  committed: boolean;
}

/**
 * Starts `chat` as the component renders; stops it when the component goes, when it renders another chat, or when
 * the render that started it never reaches the page: a render that throws (the component or a child) commits
 * nothing, so no effect of it runs, and nothing else would stop the chat it started. Preact commits a render in the
 * same task, so the microtask queued at the start runs after the commit, if there is one.
 */
export function useStartedAtRender(chat: Startable): void {
  const started = useRef<Started | undefined>(undefined);
  if (started.current?.chat !== chat) {
    started.current?.stop();
    const now: Started = { chat, stop: once(chat.start()), committed: false };
    started.current = now;
    queueMicrotask(() => now.committed || now.stop());
  }
  useLayoutEffect(() => void (started.current && (started.current.committed = true)));
  useLayoutEffect(() => () => started.current?.stop(), []);
}

function once(stop: () => void): () => void {
  let stopped = false;
  return () => void (stopped || ((stopped = true), stop()));
}
