// The markdown renderer's chunk (markdown-it and DOMPurify, markdown.ts), loaded once for every message that renders
// markdown. The app loads it when it is first idle after its start (docs/app.md "Start-up", SU19): a chat opened then
// shows its messages rendered in its first frame, where it showed their source until the chunk was in, and the chunk's
// evaluation (markdown-it's set-up) is not paid in that chat's open.
import { chunkLoader } from "../state/chunk-loader.ts";
import { whenIdle } from "../state/frames.ts";

type Renderer = typeof import("./markdown.ts");

/** Loaded once; a failed load (offline, never cached) is tried again by the next message shown. */
export const rendererChunk = chunkLoader<Renderer>(() => import("./markdown.ts"));

/** Loads the renderer when the page is next idle; a failed load is left to the next message that needs it. */
export function loadRendererWhenIdle(): void {
  whenIdle(() => void rendererChunk.load().catch(() => undefined));
}
