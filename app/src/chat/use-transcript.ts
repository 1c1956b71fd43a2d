// Loads a session's transcript and keeps it current: the snapshot and its cursor from the client library, then
// every event of the session applied in order (the library guarantees none is missed or repeated), coalesced
// to one render per animation frame so a fast stream never renders more often than the screen paints.
import { useEffect, useState } from "preact/hooks";
import type { AnyEvent, ChatClient } from "../../../client/index.ts";
import { applyEvent, emptyTranscript, type Transcript } from "./transcript.ts";
import { cacheMessages } from "./transcript-cache.ts";

/** One display frame at 60 Hz: how often a streamed reply is re-rendered at most. */
const FRAME_MS = 16;

export interface TranscriptView {
  transcript: Transcript;
  loading: boolean;
  error?: unknown;
}

export function useTranscript(client: ChatClient | undefined, session_id: string | undefined, fallback: Transcript | undefined, reloadKey: number): TranscriptView {
  const [view, setView] = useState<TranscriptView>({ transcript: fallback ?? emptyTranscript(), loading: session_id !== undefined });
  useEffect(() => {
    if (!client || !session_id) {
      setView({ transcript: emptyTranscript(), loading: false });
      return;
    }
    let current: Transcript | undefined;
    let cached: Transcript["messages"] | undefined;
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
      if (current.messages !== cached) cacheMessages(session_id, (cached = current.messages));
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
    setView((previous) => ({ ...previous, loading: true }));
    client.loadMessages(session_id, onEvent).then(
      (loaded) => {
        dispose = loaded.dispose;
        if (disposed) return dispose();
        current = loaded.events.reduce(applyEvent, emptyTranscript(loaded.messages));
        flush();
      },
      (error: unknown) => !disposed && setView((previous) => ({ ...previous, loading: false, error })),
    );
    const unwatch = client.notifications.watchSession(session_id);
    return () => {
      disposed = true;
      if (frame > 0) cancelAnimationFrame(frame);
      dispose();
      void unwatch.then((off) => off());
    };
  }, [client, session_id, reloadKey]);
  return view;
}
