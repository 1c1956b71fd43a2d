// Builds a running server from its inputs: opens the SQLite file, ensures the admin token, assembles the
// context and the HTTP app. main.ts adds the process concerns (listening, signals); tests call this directly.
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import pino from "pino";
import {
  type PeopleParts,
  openStore,
  startSearchIndexer,
  startNotifications,
  exportAndImport,
  startPeople,
  startRunner,
  openSettings,
  openDocuments,
} from "./runtime-parts.ts";
import { buildApp } from "./app.ts";
import { ensureAdminToken } from "./auth/admin-token.ts";
import { Authenticator } from "./auth/authenticator.ts";
import { generateToken } from "./auth/tokens.ts";
import { PairingService } from "./pairing/pairing-service.ts";
import { systemClock, type Clock } from "./clock.ts";
import { DEFAULT_SERVER_URL } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import type { ServerContext } from "./context.ts";
import { SessionService } from "./sessions/session-service.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { ActionRegistry } from "./actions/registry.ts";
import { AssetStore } from "./assets/store.ts";
import { PluginLoader } from "./plugins/loader.ts";
import { McpManager } from "./mcp/manager.ts";
import { startForwarder } from "./forwarder/forwarder.ts";
import { advertisedUrls } from "./pairing/urls.ts";
import { Audiences } from "./e2e/audiences.ts";
import { ContentKeys } from "./e2e/content-keys.ts";
import { rotateForRevocation } from "./e2e/rotation.ts";
import { EndToEnd } from "./e2e/end-to-end.ts";
import { ensureServerKey } from "./e2e/server-key.ts";
import { ReplayGuard } from "./e2e/replay-guard.ts";
import { createPushService } from "./push/index.ts";
import { SearchService } from "./search/search-service.ts";
import { ProducerStore } from "./producers/producer-store.ts";
import { SpeechService } from "./speech/speech-service.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { nodeDisk, type DiskWrites } from "./db/disk.ts";
import { livePushConfig } from "./settings/live-parts.ts";
import { PersonalStore } from "./personal/personal-store.ts";
import { PeopleStore } from "./people/people-store.ts";

export interface RuntimeOptions {
  config: Config;
  configDir?: string;
  dataDir: string;
  adminToken?: string | undefined;
  /** Where the forwarder finds the bridge (and what pairing tells apps); absent or empty: no bridge. */
  bridgeUrl?: string;
  /** Where apps reach this server; the config's server.public_url wins. */
  serverUrl?: string;
  /** HOST: when a wildcard (0.0.0.0, ::), the URLs apps are given use the LAN address (pairing/urls.ts). */
  host?: string;
  /** BRIDGE_PUBLIC_URL: the bridge URL apps are given, when it differs from bridgeUrl. */
  bridgePublicUrl?: string;
  /** The companion app's built files, served at `/`; default <repo>/app/dist (http/app-files.ts). */
  appDir?: string;
  clock?: Clock;
  log?: FastifyBaseLogger;
  /**
   * Owner epoch for until_server_restart notifications (docs/notifications.md). Defaults to this process's
   * epoch: a new runtime in the same process (an application replacement) keeps it, a new process does not.
   */
  ownerEpoch?: string;
  /** How a person's files are written (db/disk.ts); node:fs unless a test hands a full disk. */
  disk?: DiskWrites;
}

export interface Runtime {
  ctx: ServerContext;
  app: FastifyInstance;
  /** The admin token in clear when this start generated it (print it once), else undefined. */
  generatedAdminToken: string | undefined;
  /** This process's local admin token (auth/local-admin.ts): main.ts writes it to DATA_DIR once listening. */
  localAdminToken: string;
  /** Ends background work, closes the HTTP server and the database. Safe to call twice. */
  close(): Promise<void>;
}

export { DATABASE_FILE } from "./runtime-parts.ts";

export function createRuntime(options: RuntimeOptions): Runtime {
  const { dataDir } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? pino({ level: "silent" });
  // The sections openStore reads (server, events) are start-only: the config file's are the ones in force.
  const { db, serverId, checkpointer, transactor, events } = openStore(options.config, dataDir, clock, log);
  let peopleParts: PeopleParts | undefined;
  const settings = openSettings(options.config, dataDir, db, log, () => peopleParts!.audit);
  const config = settings.config;
  const sessions = new SessionService(transactor, new SessionStore(db, () => clock.now()), events, () =>
    settings.agents.keys(),
  );
  const admin = ensureAdminToken(dataDir, options.adminToken);
  const shutdown = new AbortController();
  const advertised = advertisedUrls({
    host: options.host ?? "127.0.0.1",
    serverUrl: options.serverUrl ?? DEFAULT_SERVER_URL,
    bridgeUrl: options.bridgeUrl ?? "",
    publicUrl: config.server.public_url,
    bridgePublicUrl: options.bridgePublicUrl,
  });
  const notifications = startNotifications({ db, transactor, sessions, events, clock, log, config, options });
  const pairing = new PairingService(db, () => clock.now());
  const e2e = new EndToEnd(
    serverId,
    ensureServerKey(dataDir),
    new ContentKeys(db, () => clock.now()),
    new Audiences(db, events),
    new ReplayGuard(pairing.relayFloors),
    config.bridge.require_e2e,
  );
  // A pairing that an app refused before this start (docs/security.md "Pairing") leaves no live device behind it.
  pairing.revokeUnused();
  const localAdminToken = generateToken(32);
  const people = new PeopleStore(db, clock);
  const auth = new Authenticator(db, admin.hash, localAdminToken, people);
  // A revoked device's token stops working at once: the authenticator's memory of live devices goes with the
  // revocation. First of the revocation's listeners, so a later one that throws cannot leave the token accepted.
  pairing.onRevoke(() => auth.forget());
  // A revoked device keeps its keys: its person's and everyone's are rotated; other people's stay (it never had them).
  pairing.onRevoke((deviceId) => rotateForRevocation(e2e, deviceId));
  // Web Push (docs/push.md), when configured; its revocation listener comes after the two above.
  const push = createPushService({
    config: livePushConfig(settings),
    dataDir,
    db,
    events,
    pairing,
    sessions,
    clock,
    log,
    shutdown: shutdown.signal,
  });
  const actions = new ActionRegistry();
  const disk = options.disk ?? nodeDisk;
  const assets = new AssetStore({ db, transactor, sessions, clock, dataDir, maxBytes: config.assets.max_bytes, disk });
  const configDir = options.configDir ?? process.cwd();
  const plugins = new PluginLoader({
    paths: config.plugins,
    configDir,
    agents: config.agents,
    notifications,
    actions,
    log,
  });
  const mcp = new McpManager({
    servers: config.mcp_servers,
    clock,
    log,
    notifications,
    events,
    pluginHas: (name) => plugins.tools.get(name) !== undefined,
  });
  const documents = openDocuments(
    { db, transactor, events, clock, dataDir, log, scrub: () => checkpointer.truncate() },
    settings,
  );
  const personal = new PersonalStore(db, clock);
  const runner = startRunner(
    { events, sessions, transactor, clock, log, shutdown: shutdown.signal, notifications, assets, plugins, mcp },
    { settings, documents, personal, ownerOf: (sessionId) => peopleParts?.audiences.of(sessionId)?.owner_id },
  );
  const searchIndexer = startSearchIndexer(db, transactor, events, sessions, log);
  peopleParts = startPeople({
    db,
    store: people,
    pairing,
    events,
    clock,
    sessions,
    runner,
    assets,
    transactor,
    documents,
    e2e,
    checkpoints: checkpointer,
    search: { indexer: searchIndexer },
    notifications,
    log,
  });
  const ctx: ServerContext = {
    // The settings in force, read again by every call: a PATCH /settings changes them without a restart.
    get config() {
      return settings.config;
    },
    configDir,
    dataDir,
    disk,
    serverId,
    get agents() {
      return settings.agents;
    },
    db,
    transactor,
    checkpoints: checkpointer,
    events,
    sessions,
    auth,
    pairing,
    e2e,
    clock,
    log,
    shutdown: shutdown.signal,
    urls: {
      server: advertised.serverUrl,
      bridge: options.bridgeUrl ?? "",
      bridgePublic: advertised.bridgeUrl,
      ...(config.server.app_url ? { app: config.server.app_url } : {}),
    },
    notifications,
    actions,
    assets,
    plugins,
    runner,
    push,
    search: new SearchService(db, transactor, searchIndexer, sessions),
    producers: new ProducerStore(db, clock),
    ...exportAndImport({ db, transactor, sessions, assets, clock, dataDir, serverId, settings }),
    mcp,
    speech: new SpeechService(() => settings.config),
    documents,
    uploads: new UploadService({ dataDir, disk, clock, shutdown: shutdown.signal }),
    settings,
    personal,
    ...peopleParts,
  };
  // MCP servers follow the settings: added ones start, removed ones stop, changed ones restart.
  settings.onApply((next) => mcp.reconfigure(next.config.mcp_servers));
  const app = buildApp(ctx, {}, { appDir: options.appDir });
  // Plugins load once, when the app becomes ready (app.ready() / listen): a broken plugin stops the start.
  app.addHook("onReady", async () => {
    await plugins.load();
    // After the plugins, so an MCP tool named like a plugin tool is left out. Servers connect in parallel; one
    // that fails goes on restarting in the background and does not stop the start.
    await mcp.start();
  });
  // No bridge URL (tests, `BRIDGE_URL=`): the server serves HTTP alone and events wait in the store.
  const forwarder = startForwarder(ctx, { bridgeUrl: ctx.urls.bridge, app });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      shutdown.abort();
      searchIndexer.stop();
      // In-flight runs end with request_cancelled/request_completed while the database is still open.
      await runner.shutdown();
      await mcp.stop();
      documents.close();
      await forwarder.stop();
      await push?.close();
      await app.close();
      e2e.calls.flush();
      transactor.commitGroup();
      await checkpointer.stop();
      db.close();
    })());
  return { ctx, app, generatedAdminToken: admin.generated, localAdminToken, close };
}
