// The images of the chats kept offline (docs/app.md "Offline", OF7): a chat's stored images (its messages'
// `{type: "asset"}` attachments) are kept with its messages in the offline cache, counted in its byte bound, so a
// chat read offline shows its thumbnails and full-size images too. They are fetched once the chat has loaded, one at
// a time, and a thumbnail shown online keeps what it fetched. Image links (`image_url`) are other sites' and are not
// kept; data URLs are in the messages already.
import type { ChatClient, Message } from "../../../client/index.ts";
import { imagesOf } from "../render/attachments.ts";
import type { OfflineCache } from "../state/offline-cache.ts";

/** The stored images of these messages, each once, in order. */
export function assetIdsOf(messages: readonly Message[]): string[] {
  const ids = new Set<string>();
  for (const message of messages)
    for (const image of imagesOf(message.metadata?.attachments)) if (image.kind === "asset") ids.add(image.assetId);
  return [...ids];
}

/** Downloads in flight, so a chat reopened while its images are still coming does not fetch them twice. */
const inFlight = new Map<string, Promise<Blob>>();

function download(client: ChatClient, session_id: string, asset_id: string): Promise<Blob> {
  const key = `${session_id}/${asset_id}`;
  const running = inFlight.get(key);
  if (running) return running;
  const fetched = client
    .downloadAttachment(session_id, asset_id)
    .then((file) => new Blob([file.bytes as BlobPart], { type: file.media_type }))
    .finally(() => inFlight.delete(key));
  inFlight.set(key, fetched);
  return fetched;
}

/**
 * Keeps the images of a kept chat's messages that the cache lacks, one at a time; stops at the first that does not
 * fit (the chat's share of the bound is full) or when the chat is no longer kept.
 */
export async function keepImagesOffline(
  cache: OfflineCache,
  client: ChatClient,
  session_id: string,
  messages: readonly Message[],
): Promise<void> {
  const kept = new Set(await cache.keptAssets(session_id));
  for (const asset_id of assetIdsOf(messages)) {
    if (kept.has(asset_id)) continue;
    const image = await download(client, session_id, asset_id);
    if (!(await cache.writeAsset(session_id, asset_id, image))) return;
  }
}

/**
 * A thumbnail's loader: this device's copy first (offline, or simply faster), else the server's, kept for next time.
 * Rejects when neither has it (the thumbnail stays a placeholder).
 */
export function offlineAssetLoader(
  cache: OfflineCache,
  client: ChatClient | undefined,
  session_id: string,
  report: (message: string, detail: unknown) => void,
): (asset_id: string) => Promise<Blob> {
  return async (asset_id) => {
    const copy = await cache.readAsset(session_id, asset_id).catch(() => undefined);
    if (copy) return copy;
    if (!client) throw new Error("this device is not paired.");
    const image = await download(client, session_id, asset_id);
    cache.writeAsset(session_id, asset_id, image).catch((error: unknown) => report("keeping an image failed", error));
    return image;
  };
}
