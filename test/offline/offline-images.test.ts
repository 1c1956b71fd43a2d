// The images of the chats kept offline (app/src/offline/offline-images.ts and the cache's assets, docs/app.md
// "Offline" OF2 and OF7): a kept chat's stored images are kept with it and counted in the byte bound (oldest chat out
// first), an image that cannot fit beside its chat's messages is not kept, a chat forgotten or evicted takes its images
// with it, and the bound follows the server's `offline.max_mb` once set. The client here stands in for the server's
// download route only (its own tests cover it); test/app/offline-search.test.ts does it all in Chromium.
import { describe, expect, it } from "vitest";
import type { ChatClient, Message } from "../../client/index.ts";
import { assetIdsOf, keepImagesOffline, offlineAssetLoader } from "../../app/src/offline/offline-images.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";

const withImages = (...assetIds: string[]): Message[] => [
  {
    role: "user",
    content: "look",
    metadata: { attachments: assetIds.map((asset_id) => ({ type: "asset", asset_id })) },
  },
  { role: "assistant", content: "nice" },
];
const image = (bytes: number) => new Blob([new Uint8Array(bytes)], { type: "image/png" });

function downloads(sizes: Record<string, number>) {
  const asked: string[] = [];
  const client = {
    async downloadAttachment(session_id: string, asset_id: string) {
      asked.push(`${session_id}/${asset_id}`);
      const size = sizes[asset_id];
      if (size === undefined) throw new Error("asset_not_found");
      return { bytes: new Uint8Array(size), media_type: "image/png" };
    },
  } as unknown as ChatClient;
  return { client, asked };
}

describe("images kept offline", () => {
  it("names each stored image of the messages once, and not links or other attachments", () => {
    const messages: Message[] = [
      ...withImages("a1", "a2"),
      {
        role: "user",
        content: "again",
        metadata: {
          attachments: [
            { type: "asset", asset_id: "a1" },
            { type: "image_url", url: "https://example.com/x.png" },
            { type: "document", document_id: "d1" },
          ],
        },
      },
    ];
    expect(assetIdsOf(messages)).toEqual(["a1", "a2"]);
  });

  it("keeps a chat's images with it, once, and reads them back", async () => {
    const cache = memoryCache();
    const messages = withImages("a1", "a2");
    await cache.writeMessages("s1", messages);
    const { client, asked } = downloads({ a1: 100, a2: 200 });
    await keepImagesOffline(cache, client, "s1", messages);
    await keepImagesOffline(cache, client, "s1", messages);
    expect(asked).toEqual(["s1/a1", "s1/a2"]);
    expect((await cache.readAsset("s1", "a2"))?.size).toBe(200);
    expect(await cache.keptAssets("s1")).toEqual(["a1", "a2"]);
  });

  it("counts images in the byte bound: the chat opened longest ago goes with its images; one too big is not kept", async () => {
    let now = 0;
    const cache = memoryCache({ now: () => now, maxBytes: 2000 });
    for (const id of ["old", "new"]) {
      now += 1;
      await cache.writeMessages(id, withImages(`${id}-img`));
    }
    expect(await cache.writeAsset("old", "old-img", image(900))).toBe(true);
    // The newer chat's image makes room by dropping the older chat, messages and image.
    expect(await cache.writeAsset("new", "new-img", image(1500))).toBe(true);
    expect(await cache.keptSessions()).toEqual(["new"]);
    expect(await cache.readAsset("old", "old-img")).toBeUndefined();
    expect(await cache.readMessages("old")).toBeUndefined();
    // An image that cannot fit beside its own chat's messages is refused; the chat stays.
    expect(await cache.writeAsset("new", "huge", image(5000))).toBe(false);
    expect(await cache.readAsset("new", "huge")).toBeUndefined();
    expect(await cache.keptSessions()).toEqual(["new"]);
    // Only a kept chat's images are kept.
    expect(await cache.writeAsset("never-opened", "x", image(10))).toBe(false);
  });

  it("forgets a chat's images with it (session_deleted, access revoked) and on a wipe", async () => {
    const cache = memoryCache();
    for (const id of ["s1", "s2"]) {
      await cache.writeMessages(id, withImages("img"));
      await cache.writeAsset(id, "img", image(10));
    }
    await cache.forgetSession("s1");
    expect(await cache.readAsset("s1", "img")).toBeUndefined();
    expect((await cache.readAsset("s2", "img"))?.size).toBe(10);
    await cache.wipe();
    expect(await cache.readAsset("s2", "img")).toBeUndefined();
  });

  it("follows the byte bound set from the server's offline.max_mb", async () => {
    let now = 0;
    const cache = memoryCache({ now: () => now });
    await cache.setMaxBytes(1500);
    for (const id of ["a", "b"]) {
      now += 1;
      await cache.writeMessages(id, withImages("img"));
      await cache.writeAsset(id, "img", image(1000));
    }
    expect(await cache.keptSessions()).toEqual(["b"]);
  });

  it("shows this device's copy first and keeps what it had to download", async () => {
    const cache = memoryCache();
    await cache.writeMessages("s1", withImages("a1", "a2"));
    await cache.writeAsset("s1", "a1", image(5));
    const { client, asked } = downloads({ a2: 7 });
    const load = offlineAssetLoader(cache, client, "s1", () => undefined);
    expect((await load("a1")).size).toBe(5);
    expect((await load("a2")).size).toBe(7);
    expect(asked).toEqual(["s1/a2"]);
    await expect.poll(() => cache.keptAssets("s1")).toEqual(["a1", "a2"]);
    await expect(offlineAssetLoader(cache, undefined, "s1", () => undefined)("gone")).rejects.toThrow("not paired");
  });
});
