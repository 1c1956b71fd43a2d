// GET /app-config.json (no token; served by the server and by the bridge that serves the app): where the app it
// came with finds its server and bridge, so every pairing screen is right with any port or public URL. It never
// carries the encryption key: a key that did not come from the QR code or the printed link is confirmed by its
// fingerprint (docs/security.md).
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";

export const appConfigSchema = lazySchema(() =>
  z.object({
    server_id: z.string().min(1).max(100),
    /** The server's HTTP base URL as apps should reach it. */
    server_url: z.string().url().max(2048),
    /** The bridge's phoenix endpoint (ws:// or wss://), or null when the server runs without a bridge. */
    bridge_url: z
      .string()
      .regex(/^wss?:\/\/\S+$/i)
      .max(2048)
      .nullable(),
    /** Where the app is served for devices (`server.app_url`, else the server's own `/`). */
    app_url: z.string().url().max(2048),
    /** The config's `offline` section, only when it has one: the bound of a device's offline copy, in MB. */
    offline: z.object({ max_mb: z.number().int().min(1).max(10_000) }).optional(),
  }),
);
export type AppConfig = z.infer<typeof appConfigSchema>;
