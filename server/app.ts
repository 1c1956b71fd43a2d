// The HTTP surface: one Fastify instance with auth, the error body, and every route module registered. Every
// route lives in server/http/routes/<area>.ts and calls services only.
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from "fastify";
import type { ServerContext } from "./context.ts";
import { installAuth } from "./http/auth.ts";
import { BodyBudget, installBodyBudget } from "./http/body-budget.ts";
import { installCors } from "./http/cors.ts";
import { installErrorHandling } from "./http/error-handler.ts";
import { installJsonBodyParser } from "./http/json-body.ts";
import { installRequestLog } from "./http/request-log.ts";
import { httpServerOptions } from "./http/server-options.ts";
import { installSessionAccess } from "./http/session-access.ts";
import { installSessionViews } from "./http/session-view-hook.ts";
import { installRequestLimits } from "./http/request-limits.ts";
import { SessionViews } from "./people/session-views.ts";
import { registerPeopleRoutes } from "./http/routes/people.ts";
import { registerShareRoutes } from "./http/routes/shares.ts";
import { registerShareLinkRoutes } from "./http/routes/share-links.ts";
import { registerEventRoutes } from "./http/routes/events.ts";
import { registerHealthRoutes } from "./http/routes/health.ts";
import { registerSessionRoutes } from "./http/routes/sessions.ts";
import { registerNotificationRoutes } from "./http/routes/notifications.ts";
import { noteDevicesSeen } from "./pairing/pairing-service.ts";
import { registerPairingRoutes } from "./http/routes/pairing.ts";
import { registerE2eRoutes } from "./http/routes/e2e.ts";
import { registerAssetRoutes } from "./http/routes/assets.ts";
import { registerRequestRoutes } from "./http/routes/requests.ts";
import { registerTurnRoutes } from "./http/routes/turns.ts";
import { registerDeviceSelfRoutes } from "./http/routes/devices-self.ts";
import { registerProviderRoutes } from "./http/routes/providers.ts";
import { registerActionRoutes } from "./http/routes/actions.ts";
import { registerPushRoutes } from "./http/routes/push.ts";
import { registerSearchRoutes } from "./http/routes/search.ts";
import { registerProducerRoutes } from "./http/routes/producers.ts";
import { registerProducerNotificationRoutes } from "./http/routes/producer-notifications.ts";
import { registerExportRoutes } from "./http/routes/export.ts";
import { registerInteractionRoutes } from "./http/routes/interactions.ts";
import { registerMcpRoutes } from "./http/routes/mcp.ts";
import { registerSpeechRoutes } from "./http/routes/speech.ts";
import { registerDocumentRoutes } from "./http/routes/documents.ts";
import { registerUploadRoutes } from "./http/routes/uploads.ts";
import { registerSettingsRoutes } from "./http/routes/settings.ts";
import { registerPersonalRoutes } from "./http/routes/personal.ts";
import { DEFAULT_APP_DIR, registerAppFiles } from "./http/routes/app-files.ts";
import { registerAppConfigRoute } from "./http/routes/app-config.ts";

/** Largest JSON body a route accepts unless it says otherwise (attachment uploads do). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface BuildOptions {
  /** The companion app's built files, served at `/` without a token; default <repo>/app/dist. */
  appDir?: string;
  /** Hears of every route as it is registered, with its options (the architecture tests list them so). */
  onRoute?: (route: RouteOptions) => void;
  /** The request-body bytes held at once (http/body-budget.ts); tests hand a small one and read its inFlight. */
  bodyBudget?: BodyBudget;
}

export function buildApp(
  ctx: ServerContext,
  options: FastifyServerOptions = {},
  { appDir = DEFAULT_APP_DIR, onRoute, bodyBudget = new BodyBudget() }: BuildOptions = {},
): FastifyInstance {
  // forceCloseConnections: close() must not wait out keep-alive sockets (a finished long-poll leaves one).
  // httpServerOptions: connection limits, and the one error body for refusals before routing.
  const app = Fastify({
    bodyLimit: DEFAULT_BODY_LIMIT,
    forceCloseConnections: true,
    ...httpServerOptions(),
    ...options,
    loggerInstance: ctx.log,
  });
  if (onRoute) app.addHook("onRoute", onRoute);
  installRequestLog(app);
  installErrorHandling(app);
  installJsonBodyParser(app);
  installCors(app);
  installAuth(app, ctx.auth, (deviceId) => noteDevicesSeen(ctx, [deviceId]));
  // Right after auth, the first hook that knows the caller (a person's share of the budget), before any body is read.
  installBodyBudget(app, bodyBudget);
  installSessionAccess(app, ctx.chatGuard);
  installSessionViews(app, new SessionViews(ctx.db));
  installRequestLimits(app, ctx.db, ctx.people);
  registerHealthRoutes(app);
  registerEventRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerNotificationRoutes(app, ctx);
  registerPairingRoutes(app, ctx);
  registerE2eRoutes(app, ctx);
  registerAssetRoutes(app, ctx);
  registerRequestRoutes(app, ctx);
  registerTurnRoutes(app, ctx);
  registerDeviceSelfRoutes(app, ctx);
  registerProviderRoutes(app, ctx);
  registerActionRoutes(app, ctx);
  registerPushRoutes(app, ctx);
  registerAppConfigRoute(app, ctx);
  registerSearchRoutes(app, ctx);
  registerProducerRoutes(app, ctx);
  registerProducerNotificationRoutes(app, ctx);
  registerExportRoutes(app, ctx);
  registerInteractionRoutes(app, ctx);
  registerMcpRoutes(app, ctx);
  registerSpeechRoutes(app, ctx);
  registerDocumentRoutes(app, ctx);
  registerUploadRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerPersonalRoutes(app, ctx);
  registerPeopleRoutes(app, ctx);
  registerShareRoutes(app, ctx);
  registerShareLinkRoutes(app, ctx);
  registerAppFiles(app, appDir);
  return app;
}
