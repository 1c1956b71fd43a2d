// The server's settings, changed from the app without a restart (docs/settings.md): GET/PATCH /settings and the
// Connections screen's test of a provider. Secrets are "set" both ways: never sent back, kept when sent as "set".
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";

/** What a view shows for a stored secret, and what a patch sends to keep it. */
export const SECRET_SET = "set";

/** The config's shape (providers, agents, mcp_servers, push, titles, ...) as in force, every secret as "set". */
export const settingsDocumentSchema = lazySchema(() => z.record(z.string(), z.unknown()));

export const settingsViewSchema = lazySchema(() =>
  z.object({
    revision: z.number().int().nonnegative(),
    settings: settingsDocumentSchema,
  }),
);
export type SettingsView = z.infer<typeof settingsViewSchema>;

/** One problem of a refused patch (400 invalid_settings `details`). */
export const settingsIssueSchema = lazySchema(() => z.object({ path: z.string(), message: z.string() }));
export type SettingsIssue = z.infer<typeof settingsIssueSchema>;

export const getSettingsRoute = defineRoute("GET", "/settings", () => ({
  answer: settingsViewSchema,
  errors: ["admin_required"],
}));

export const patchSettingsRoute = defineRoute("PATCH", "/settings", () => ({
  body: z
    .object({
      /** The revision the patch was made against; another one is 409 revision_mismatch. */
      expected_revision: z.number().int().nonnegative(),
      /** A JSON merge patch (RFC 7396) of the settings: a null removes a key. */
      patch: z.record(z.string(), z.unknown()),
    })
    .strict(),
  answer: settingsViewSchema,
  errors: ["admin_required", "invalid_settings", "settings_locked", "revision_mismatch"],
}));

export const providerTestSchema = lazySchema(() =>
  z.object({
    ok: z.boolean(),
    latency_ms: z.number().nonnegative(),
    models: z.array(z.string()),
    /** The backend's own words when it refused or could not be reached. */
    error: z.string().optional(),
  }),
);
export type ProviderTest = z.infer<typeof providerTestSchema>;

export const testProviderRoute = defineRoute("POST", "/providers/:provider_id/test", () => ({
  params: z.object({ provider_id: z.string().min(1).max(100) }),
  body: z
    .object({
      /** Also ask for a one-token completion (hosted backends bill it). */
      complete: z.boolean().optional(),
    })
    .strict()
    .default({}),
  answer: providerTestSchema,
  errors: ["admin_required", "provider_not_found", "link_local_not_allowed"],
}));
