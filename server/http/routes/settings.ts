// GET/PATCH /settings and POST /providers/{id}/test (docs/settings.md): what the app's Settings screens change
// without a restart. Admin only.
import type { FastifyInstance } from "fastify";
import { performance } from "node:perf_hooks";
import { getSettingsRoute, patchSettingsRoute, testProviderRoute } from "../../../client/wire/routes/settings.ts";
import type { ServerContext } from "../../context.ts";
import { invalid, notFound } from "../../errors.ts";
import { resolvesToLinkLocal } from "../../settings/link-local.ts";
import { testProvider } from "../../settings/provider-test.ts";
import { requireAdminCaller } from "../caller-person.ts";
import { serveRoute } from "../serve-route.ts";

export function registerSettingsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  serveRoute(app, getSettingsRoute, ({ request }) => {
    requireAdminCaller(request);
    return ctx.settings.view();
  });

  serveRoute(app, patchSettingsRoute, ({ request, body }) =>
    ctx.settings.patch(body.expected_revision, body.patch, requireAdminCaller(request)),
  );

  serveRoute(app, testProviderRoute, async ({ request, params, body }) => {
    requireAdminCaller(request);
    const providers = ctx.settings.config.providers;
    const settings = Object.hasOwn(providers, params.provider_id) ? providers[params.provider_id] : undefined;
    if (!settings) throw notFound("provider_not_found", `no provider "${params.provider_id}" in the settings`);
    if (!ctx.settings.config.settings.allow_link_local && (await resolvesToLinkLocal(settings.base_url)))
      throw invalid(
        "link_local_not_allowed",
        "the provider's address is link-local (where clouds answer metadata requests); settings.allow_link_local in " +
          "the config file allows it",
      );
    return testProvider(settings, body.complete === true, {
      clock: ctx.clock,
      log: ctx.log,
      elapsed: () => performance.now(),
    });
  });
}
