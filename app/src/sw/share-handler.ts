// The service worker's part of the share target (docs/documents.md "In the app"): the installed app is a target of the
// system's Share sheet (manifest `share_target`, a multipart POST to ./share-target). The worker takes that POST, keeps
// the shared files (and any shared text or link) in a cache of their own, and answers with a redirect to a new chat,
// which takes them into its composer (documents/shared-files.ts) and deletes them. Written as one self-contained
// function whose text goes into sw.js, like push-handler.ts.

export function installShareHandler(sw: ServiceWorkerGlobalScope): void {
  const SHARE_CACHE = "chat-relay-share";
  /** At most this many files, and this many bytes in all, are kept from one share. */
  const MAX_FILES = 10;
  const MAX_BYTES = 100 * 1024 * 1024;
  sw.addEventListener("fetch", (event) => {
    const request = event.request;
    if (request.method !== "POST") return;
    if (new URL(request.url).href !== new URL("./share-target", sw.registration.scope).href) return;
    event.respondWith(keep(request));
  });
  async function keep(request: Request): Promise<Response> {
    const form = await request.formData();
    const cache = await caches.open(SHARE_CACHE);
    await Promise.all((await cache.keys()).map((key) => cache.delete(key)));
    let total = 0;
    let index = 0;
    for (const entry of form.getAll("files").slice(0, MAX_FILES)) {
      if (typeof entry === "string" || (total += entry.size) > MAX_BYTES) continue;
      const headers = {
        "content-type": entry.type || "application/octet-stream",
        "x-file-name": encodeURIComponent(entry.name),
      };
      await cache.put(new URL(`./shared/${index++}`, sw.registration.scope).href, new Response(entry, { headers }));
    }
    const text = ["title", "text", "url"]
      .map((key) => form.get(key))
      .filter((value) => typeof value === "string" && value);
    if (text.length > 0)
      await cache.put(new URL("./shared/text", sw.registration.scope).href, new Response(text.join("\n")));
    return Response.redirect(new URL("./#/new?shared=1", sw.registration.scope).href, 303);
  }
}

export const SHARE_HANDLER_SOURCE = `(${installShareHandler.toString()})(self);\n`;
