// The JSON config file (docs/server.md "Config file"). Every object is strict: an unknown key is an error that names
// its path, so a typo never silently falls back to a default. Every default is written once, on its key: an
// absent object is `prefault({})`, which parses `{}` through the object and so takes the keys' own defaults.
import { z } from "zod";
import { mcpServersSchema } from "../mcp/config.ts";
import { providerOverridesSchema, providerSettingsSchema } from "../provider/settings.ts";
import { pushConfigSchema } from "./push.ts";
import { documentsConfigSchema, embeddingRefSchema } from "../documents/config.ts";
import { speechConfigSchema } from "../speech/config.ts";
import { webUrl } from "./web-url.ts";

const agentSchema = providerOverridesSchema
  .extend({
    provider_id: z.string().min(1),
    system_prompt: z.string().optional(),
    /** Tool names; an MCP server's tools as `mcp__<server>__<tool>` or all of them as `mcp__<server>__*`. */
    tools: z.array(z.string().min(1)).optional(),
    /** The embedding model that makes document retrieval hybrid (docs/documents.md "Hybrid retrieval"). */
    embedding: embeddingRefSchema.optional(),
  })
  .strict();

/** Terminal records kept per notification scope when the config sets neither history_limit nor max_items. */
const DEFAULT_HISTORY_LIMIT = 1000;

const notificationsConfigSchema = z
  .object({
    history_limit: z.number().int().nonnegative().optional(),
    /** Legacy alias of history_limit (docs/notifications.md "History limit"). */
    max_items: z.number().int().nonnegative().optional(),
  })
  .strict()
  // The alias is resolved here, so readers see one number: history_limit, else max_items, else the default.
  .transform(({ history_limit, max_items }) => ({
    history_limit: history_limit ?? max_items ?? DEFAULT_HISTORY_LIMIT,
  }));

export const configSchema = z
  .object({
    server: z
      .object({
        server_id: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, '-' or '_'")
          .optional(),
        public_url: webUrl("public_url").optional(),
        // Where pair_url opens the app, when not at public_url: the bridge's app URL, for phones that reach only the
        // bridge. public_url stays the server_url apps call directly (docs/bridge.md "The app on the bridge").
        app_url: webUrl("app_url").optional(),
      })
      .strict()
      .prefault({}),
    providers: z.record(z.string().min(1), providerSettingsSchema).default({}),
    agents: z.record(z.string().min(1), agentSchema).optional(),
    application: z
      .object({ notifications: notificationsConfigSchema.prefault({}) })
      .strict()
      .prefault({}),
    events: z
      .object({
        /** The event log keeps at most this many events; older ones are pruned and their cursors expire (410). */
        retention_max_events: z.number().int().positive().default(1_000_000),
        /** Events older than this are pruned too; unset keeps them until the count bound. */
        retention_max_age_seconds: z.number().positive().optional(),
        /** Largest page GET /events returns. */
        max_page_size: z.number().int().positive().max(10_000).default(1000),
      })
      .strict()
      .prefault({}),
    runner: z
      .object({
        /** Bound on model/tool rounds in one request; a runaway loop ends with an `error` event. */
        max_tool_iterations: z.number().int().positive().default(8),
      })
      .strict()
      .prefault({}),
    assets: z
      .object({
        /** Largest uploaded or inline image attachment, in bytes (docs/runner.md "Attachments"); over it: 413. */
        max_bytes: z
          .number()
          .int()
          .positive()
          .default(10 * 1024 * 1024),
      })
      .strict()
      .prefault({}),
    bridge: z
      .object({
        /** Refuse pairing without a device key: every device then gets sealed events only (docs/security.md). */
        require_e2e: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    /** Web Push to closed apps (server/config/push.ts, docs/push.md); absent: nothing is pushed. */
    push: pushConfigSchema.optional(),
    titles: z
      .object({
        /** A session's title is written by the model after its first reply; off: its first message names it. */
        enabled: z.boolean().default(true),
        /** The model asked for titles (a small fast one will do); default: the session's own model. */
        title_model: z.string().min(1).max(200).optional(),
      })
      .strict()
      .prefault({}),
    import: z
      .object({
        /** Largest POST /import body in bytes (docs/export.md "Import"); over it: 413. */
        max_bytes: z
          .number()
          .int()
          .positive()
          .default(512 * 1024 * 1024),
      })
      .strict()
      .prefault({}),
    /** Dictation and read-aloud through speech backends (server/speech/, docs/voice.md); absent: none on the server. */
    speech: speechConfigSchema.optional(),
    /**
     * What the app keeps on a device for offline use (docs/app.md "Offline"): max_mb bounds a device's copy of its
     * chats and their images, the chat opened longest ago going first. Told to the app in GET /app-config.json;
     * absent: the app's own bound (50 MB).
     */
    offline: z
      .object({ max_mb: z.number().int().min(1).max(10_000) })
      .strict()
      .optional(),
    /** Documents attached to chats (server/documents/, docs/documents.md). */
    documents: documentsConfigSchema.prefault({}),
    /** Plugin module paths, resolved against the config file's folder. */
    plugins: z.array(z.string().min(1)).default([]),
    /** Tool servers speaking MCP (docs/tools.md); their tools reach only agents whose `tools` name them. */
    mcp_servers: mcpServersSchema,
    /**
     * What the app's Settings may do (docs/settings.md); read from the config file only, never changed by a patch.
     * allow_commands: a device of an admin may change what runs on this machine (a stdio MCP server's command, args,
     * env, cwd; plugins) without the admin token. allow_link_local: providers may be on link-local addresses
     * (169.254.0.0/16, fe80::/10: where clouds answer metadata requests with credentials).
     */
    settings: z
      .object({ allow_commands: z.boolean().default(false), allow_link_local: z.boolean().default(false) })
      .strict()
      .prefault({}),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
export type AgentConfig = z.output<typeof agentSchema>;
