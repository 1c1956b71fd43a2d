// Loads a session's transcript and keeps it current: the snapshot and its cursor from the client library, then
// every event of the session applied in order (the library guarantees none is missed or repeated), coalesced
// to one render per animation frame so a fast stream never renders more often than the screen paints. The loaded
// messages are cached for the offline view; when loading fails, or the server has not answered within
// UNREACHABLE_AFTER_MS, the cached ones (if this device has any) show, read-only, until the load answers.
import { useEffect, useState } from "preact/hooks";
import type { AnyEvent, Message } from "../../../client/index.ts";
import type { Paired } from "../state/connection.ts";
import type { AppEnv } from "../state/env.ts";
import { applyEvent, emptyTranscript, type Transcript } from "./transcript.ts";

/** One display frame at 60 Hz: how often a streamed reply is re-rendered at most. */
const FRAME_MS = 16;

/**
 * How long a chat waits for its messages before it treats the server as unreachable. With neither server_url nor the
 * bridge answering, the library's relayed read waits for a bridge that never comes (up to its push timeout, 35 s):
 * without this bound an offline chat showed an empty transcript and a live composer all that time.
 */
export const UNREACHABLE_AFTER_MS = 3000;

/** The load has not answered within UNREACHABLE_AFTER_MS; it goes on, and replaces the cached view if it answers. */
export class ServerUnreachableError extends Error {
  override readonly name = "ServerUnreachableError";
}

export interface TranscriptView {
  transcript: Transcript;
  loading: boolean;
  error?: unknown;
  /** After a failed load: the messages this device kept (undefined: loading them; null: never opened here). */
  cached?: Message[] | null;
}

/**
 * `onLoaded` gets the snapshot's messages: events at or before its cursor reach no listener afterwards (the
 * library's rule), so whatever else shows this chat (the list's title) may have missed them and must catch up.
 */
export function useTranscript(
  env: AppEnv,
  paired: Paired | undefined,
  session_id: string | undefined,
  reloadKey: number,
  onLoaded?: (messages: readonly Message[]) => void,
): TranscriptView {
  const [view, setView] = useState<TranscriptView>({
    transcript: emptyTranscript(),
    loading: session_id !== undefined,
  });
  const client = paired?.client;
  useEffect(() => {
    if (!client || !session_id) {
      setView({ transcript: emptyTranscript(), loading: false });
      return;
    }
    let current: Transcript | undefined;
    let cachedMessages: Transcript["messages"] | undefined;
    let frame = 0;
    let lastFlush = -Infinity;
    let disposed = false;
    let dispose: () => void = () => undefined;
    const flush = () => {
      frame = 0;
      lastFlush = performance.now();
      if (disposed || !current) return;
      setView({ transcript: current, loading: false });
      // For the offline view; only when the messages changed (not on every streamed token).
      if (current.messages !== cachedMessages) {
        cachedMessages = current.messages;
        env.offline
          .writeMessages(session_id, cachedMessages)
          .catch((error: unknown) => env.report("caching a transcript failed", error));
      }
    };
    const onEvent = (event: AnyEvent) => {
      if (!current) return;
      current = applyEvent(current, event);
      if (frame !== 0) return;
      // A token after a quiet frame renders at once (it paints in the next frame); one in a burst waits for the next
      // frame, so a burst costs one render per frame, never one per event.
      if (performance.now() - lastFlush >= FRAME_MS) {
        frame = -1;
        queueMicrotask(flush);
      } else frame = requestAnimationFrame(flush);
    };
    const showCached = (error: unknown) => {
      setView((previous) => ({ ...previous, loading: false, error }));
      env.offline.readMessages(session_id).then(
        (messages) =>
          !disposed &&
          setView((previous) =>
            previous.error === error
              ? { ...previous, transcript: emptyTranscript(messages ?? []), cached: messages ?? null }
              : previous,
          ),
        (cacheError: unknown) => {
          env.report("reading a cached transcript failed", cacheError);
          if (!disposed) setView((previous) => ({ ...previous, cached: null }));
        },
      );
    };
    setView((previous) => ({ ...previous, loading: true }));
    let answered = false;
    const unreachable = setTimeout(() => {
      if (!answered && !disposed)
        showCached(new ServerUnreachableError(`the server did not answer within ${UNREACHABLE_AFTER_MS / 1000} s`));
    }, UNREACHABLE_AFTER_MS);
    client.loadMessages(session_id, onEvent).then(
      (loaded) => {
        answered = true;
        clearTimeout(unreachable);
        dispose = loaded.dispose;
        if (disposed) return dispose();
        current = loaded.events.reduce(applyEvent, emptyTranscript(loaded.messages));
        flush();
        onLoaded?.(current.messages);
      },
      (error: unknown) => {
        answered = true;
        clearTimeout(unreachable);
        if (!disposed) showCached(error);
      },
    );
    // Handled at once: offline, the watch fails before the chat closes, and an unhandled rejection would follow.
    const unwatch = client.notifications.watchSession(session_id).catch((error: unknown) => {
      env.report("watching a chat's notifications failed", error);
      return undefined;
    });
    return () => {
      disposed = true;
      clearTimeout(unreachable);
      if (frame > 0) cancelAnimationFrame(frame);
      dispose();
      void unwatch.then((off) => off?.());
    };
  }, [client, session_id, reloadKey]);
  return view;
}
