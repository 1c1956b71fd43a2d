// Export and import (docs/export.md): one chat as Markdown or JSON, every chat as JSON (admin, streamed), and
// POST /import (admin) of such a file or of ChatGPT's conversations.json, read by the server as a stream up to
// import.max_bytes.
import { z } from "zod";
import { sessionParams } from "./params.ts";
import { bytesAnswer, defineRoute } from "./route.ts";

export const exportSessionRoute = defineRoute("GET", "/sessions/:session_id/export", () => ({
  params: sessionParams,
  query: z.object({ format: z.enum(["markdown", "json"], "format must be markdown or json").default("json") }).strict(),
  answer: bytesAnswer,
  bytes: true,
  errors: ["session_not_found"],
}));

export const exportAllRoute = defineRoute("GET", "/export", () => ({
  answer: bytesAnswer,
  bytes: true,
}));

export const importRoute = defineRoute("POST", "/import", () => ({
  rawBody: true,
  // {imported, skipped, chats: [{source_id, session_id, skipped}]} (docs/export.md).
  answer: z.looseObject({
    imported: z.number().int().nonnegative(),
    skipped: z.number().int().nonnegative(),
    chats: z.array(z.looseObject({})),
  }),
  errors: ["invalid_import", "import_in_progress", "payload_too_large"],
  admin: true,
}));
