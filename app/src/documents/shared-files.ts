// What "Share -> chat-relay" left for the app (sw/share-handler.ts keeps it in its own cache and opens #/new?shared=1):
// the files, as File objects for the new chat's composer, and any shared text or link; read once, then deleted.
const SHARE_CACHE = "chat-relay-share";

export interface Shared {
  files: File[];
  text: string;
}

/** Takes what the share left (nothing where the page has no caches, as on a plain http: address). */
export async function takeShared(): Promise<Shared> {
  if (typeof caches === "undefined") return { files: [], text: "" };
  const cache = await caches.open(SHARE_CACHE);
  const files: File[] = [];
  let text = "";
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    await cache.delete(request);
    if (!response) continue;
    if (request.url.endsWith("shared/text") /* the share target cache key, not a route */) text = await response.text();
    else files.push(await asFile(response));
  }
  return { files, text };
}

async function asFile(response: Response): Promise<File> {
  const name = decodeURIComponent(response.headers.get("x-file-name") ?? "shared");
  return new File([await response.blob()], name, { type: response.headers.get("content-type") ?? "" });
}
