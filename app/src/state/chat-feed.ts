// The open chat's transcript, kept current: the snapshot and its cursor from the client library, then every event of
// the session applied in order (the library guarantees none is missed or repeated), coalesced to one render per
// display frame so a fast stream never renders more often than the screen paints. The loaded messages are cached
// for the offline view; when loading fails, or the server has not answered within UNREACHABLE_AFTER_MS, the cached
// ones (if this device has any) show, read-only, until the load answers.
// A long chat opens at its end: the last FIRST_PAGE messages, then older pages of OLDER_PAGE as the reader scrolls up
// (loadOlder), each put in front of what is shown; events keep applying to the loaded part by the chat's own indices.
import { signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { AnyEvent, ChatClient, Message } from "../../../client/index.ts";
import { applyEvent, emptyTranscript, prependPage, type Transcript } from "../chat/transcript.ts";
import type { AppEnv } from "./env.ts";
import { afterPaint, type Frames } from "./frames.ts";

/** How many of a chat's last messages its first read brings: a screen's worth many times over, and no more. */
export const FIRST_PAGE = 100;
/** How many older messages one step up brings (a search result further back is read in one step, up to MAX_PAGE). */
export const OLDER_PAGE = 100;
const MAX_PAGE = 1000;

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

export interface TranscriptFeed {
  readonly view: ReadonlySignal<TranscriptView>;
  /**
   * Loads `session_id` over `client` and follows it until the returned function is called. Events at or before the
   * snapshot's cursor reach no listener afterwards (the library's rule), so whatever else shows this chat (the list's
   * title) may have missed them and must catch up once `view` has loaded (chat.ts reads the chat's head then).
   */
  follow(client: ChatClient, session_id: string): () => void;
  /**
   * Reads the page before the loaded messages (down to the chat's index `until` when given) and puts it in front;
   * nothing when the start is loaded, a read is under way or nothing is followed.
   */
  loadOlder(until?: number): Promise<void>;
}

export function createTranscriptFeed(env: AppEnv, frames: Frames, loading: boolean): TranscriptFeed {
  const view = signal<TranscriptView>({ transcript: emptyTranscript(), loading });
  let older: ((until?: number) => Promise<void>) | undefined;
  return {
    view,
    follow: (client, session_id) => {
      const followed = follow(env, frames, view, client, session_id);
      older = followed.loadOlder;
      return () => {
        if (older === followed.loadOlder) older = undefined;
        followed.stop();
      };
    },
    loadOlder: (until) => older?.(until) ?? Promise.resolve(),
  };
}

function follow(
  env: AppEnv,
  frames: Frames,
  view: Signal<TranscriptView>,
  client: ChatClient,
  session_id: string,
): { stop: () => void; loadOlder: (until?: number) => Promise<void> } {
  let disposed = false;
  let dispose: () => void = () => undefined;
  const pace = pacedRenderer(env, frames, view, session_id);
  view.value = { ...view.value, loading: true };
  let answered = false;
  const unreachable = setTimeout(() => {
    if (answered || disposed) return;
    const error = new ServerUnreachableError(`the server did not answer within ${UNREACHABLE_AFTER_MS / 1000} s`);
    showCached(env, view, session_id, error, () => disposed || answered);
  }, UNREACHABLE_AFTER_MS);
  const notifications = laterWatch(env, frames, client, session_id);
  client.loadMessages(session_id, pace.apply, { limit: FIRST_PAGE }).then(
    (loaded) => {
      answered = true;
      clearTimeout(unreachable);
      notifications.start();
      dispose = loaded.dispose;
      if (disposed) return dispose();
      const first = emptyTranscript(loaded.messages, loaded.messages_start ?? 0);
      pace.start(loaded.events.reduce(applyEvent, first));
      // The images go with the chat into the offline cache (loaded after the first paint: offline-images.ts).
      const messages = view.value.transcript.messages;
      import("../offline/offline-images.ts")
        .then(({ keepImagesOffline }) => keepImagesOffline(env.offline, client, session_id, messages))
        .catch((error: unknown) => env.report("keeping a chat's images offline failed", error));
    },
    (error: unknown) => {
      answered = true;
      clearTimeout(unreachable);
      notifications.start();
      if (!disposed) showCached(env, view, session_id, error, () => disposed);
    },
  );
  const stop = () => {
    disposed = true;
    clearTimeout(unreachable);
    pace.stop();
    dispose();
    notifications.stop();
  };
  return { stop, loadOlder: olderPages(env, frames, view, client, session_id, pace, () => disposed) };
}

/**
 * The chat's notifications, watched from `start` (the messages' answer) once that frame is painted: sent with the
 * messages, their request and answer took the main thread and the server from the chat's first paint.
 */
function laterWatch(env: AppEnv, frames: Frames, client: ChatClient, session_id: string) {
  let cancel: (() => void) | undefined;
  let unwatch: Promise<(() => void) | undefined> = Promise.resolve(undefined);
  let stopped = false;
  return {
    start() {
      if (cancel || stopped) return;
      cancel = afterPaint(frames, () => {
        // Handled at once: offline, the watch fails before the chat closes, and an unhandled rejection would follow.
        unwatch = client.notifications.watchSession(session_id).catch((error: unknown) => {
          env.report("watching a chat's notifications failed", error);
          return undefined;
        });
      });
    },
    stop() {
      stopped = true;
      cancel?.();
      void unwatch.then((off) => off?.());
    },
  };
}

/**
 * loadOlder for one followed chat: one read at a time, each put in front of the transcript the feed keeps. A page is
 * put in front in a task of its own, once the frame after its answer has been painted: the answer's task reads and
 * checks it (its text, JSON and schema), the next one renders it, so the two never add up to one long task of a
 * throttled phone's main thread (docs/app.md LC12).
 */
function olderPages(
  env: AppEnv,
  frames: Frames,
  view: Signal<TranscriptView>,
  client: ChatClient,
  session_id: string,
  pace: ReturnType<typeof pacedRenderer>,
  disposed: () => boolean,
): (until?: number) => Promise<void> {
  let reading: Promise<void> | undefined;
  const readOnce = async (until: number | undefined) => {
    const start = pace.current()?.start ?? 0;
    if (start === 0 || view.value.error !== undefined) return;
    const limit = Math.min(MAX_PAGE, Math.max(OLDER_PAGE, start - (until ?? start)));
    try {
      const page = await client.getSessionPage(session_id, { limit, before: start });
      await new Promise<void>((painted) => afterPaint(frames, painted));
      if (!disposed()) pace.prepend(page.messages, page.messages_start);
    } catch (error) {
      env.report("reading older messages failed", error);
    }
  };
  return (until) => (reading ??= readOnce(until).finally(() => (reading = undefined)));
}

/** Applies events as they come and renders at most once per frame; caches the messages when they changed. */
function pacedRenderer(env: AppEnv, frames: Frames, view: Signal<TranscriptView>, session_id: string) {
  let current: Transcript | undefined;
  let cachedMessages: Transcript["messages"] | undefined;
  let frame = 0;
  let lastFlush = -Infinity;
  let stopped = false;
  const flush = () => {
    frame = 0;
    lastFlush = frames.now();
    if (stopped || !current) return;
    view.value = { transcript: current, loading: false };
    // For the offline view; only when the messages changed (not on every streamed token).
    if (current.messages === cachedMessages) return;
    cachedMessages = current.messages;
    env.offline
      .writeMessages(session_id, cachedMessages)
      .catch((error: unknown) => env.report("caching a transcript failed", error));
  };
  return {
    start(loaded: Transcript) {
      current = loaded;
      flush();
    },
    current: () => current,
    /** An older page in front; not cached on its own (the cache keeps what the next change brings). */
    prepend(messages: Message[], start: number) {
      if (!current) return;
      current = prependPage(current, messages, start);
      cachedMessages = current.messages;
      if (frame === 0) flush();
    },
    apply(event: AnyEvent) {
      if (!current) return;
      current = applyEvent(current, event);
      if (frame !== 0) return;
      // A token after a quiet frame renders at once (it paints in the next frame); one in a burst waits for the next
      // frame, so a burst costs one render per frame, never one per event.
      if (frames.now() - lastFlush >= FRAME_MS) {
        frame = -1;
        queueMicrotask(flush);
      } else frame = frames.request(flush);
    },
    stop() {
      stopped = true;
      if (frame > 0) frames.cancel(frame);
    },
  };
}

function showCached(
  env: AppEnv,
  view: Signal<TranscriptView>,
  session_id: string,
  error: unknown,
  disposed: () => boolean,
): void {
  view.value = { ...view.value, loading: false, error };
  env.offline.readMessages(session_id).then(
    (messages) => {
      if (disposed() || view.value.error !== error) return;
      view.value = { ...view.value, transcript: emptyTranscript(messages ?? []), cached: messages ?? null };
    },
    (cacheError: unknown) => {
      env.report("reading a cached transcript failed", cacheError);
      if (!disposed()) view.value = { ...view.value, cached: null };
    },
  );
}
