// A chat whose user message carries a stored photo, as the offline tests set it up, and whether the page shows the
// photo's thumbnail decoded (docs/app.md "Offline": a kept chat shows its images).
import type { Page } from "playwright-core";
import type { AppStack } from "./app-stack.ts";

/** A 24×24 PNG, red. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAH0lEQVR4nGM4YaNBFcQwatCoQaMGjRo0atCoQQNvEAC6QaMfOyGMWwAAAABJRU5ErkJggg==";

/** Stores the PNG in `sessionId` and appends a user message `content` carrying it; both answers, for the caller. */
export async function appendPhoto(stack: AppStack, sessionId: string, filename: string, content: string) {
  const stored = await stack.server.request({
    method: "POST",
    url: `/sessions/${sessionId}/extensions/reference_compatible_attachments/store_attachment`,
    payload: { data_base64: PNG_BASE64, media_type: "image/png", filename },
  });
  const asset_id = (stored.json as { asset_id: string }).asset_id;
  const appended = await stack.server.request({
    method: "POST",
    url: `/sessions/${sessionId}/messages`,
    payload: { role: "user", content, metadata: { attachments: [{ type: "asset", asset_id }] } },
  });
  return { stored, appended, asset_id };
}

/** Whether the chat's thumbnail shows a decoded image (not the "Image" placeholder). */
export const thumbnailShown = (page: Page) =>
  page
    .locator(".thumbnail img")
    .first()
    .evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth === 24);
