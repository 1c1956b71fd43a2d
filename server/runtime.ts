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
import { FloorLog } from "./e2e/floor-log.ts";
import { ReplayGuard } from "./e2e/replay-guard.ts";
import { createPushService } from "./push/index.ts";
import { SearchService } from "./search/search-service.ts";
import { ProducerStore } from "./producers/producer-store.ts";
import { SpeechService } from "./speech/speech-service.ts";
import { DocumentService } from "./documents/document-service.ts";
import { agentEmbeddings } from "./documents/embedder.ts";
import { DEFAULT_TESSERACT } from "./documents/ocr.ts";
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
  /** The tesseract program documents are read by OCR with (documents/ocr.ts); default TESSERACT_PATH or `tesseract`. */
  tesseractPath?: string;
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
  // The people start last; what asks for them (a PATCH /settings's audit, a run's owner) comes after the start.
  let people: PeopleParts | undefined;
  const core = openCore(options, () => people!.audit);
  const access = startAccess(core, options);
  const work = startWork(core, access, options, (sessionId) => people?.audiences.of(sessionId)?.owner_id);
  people = work.people;
  const ctx = contextOf(core, access, work, options);
  // MCP servers follow the settings: added ones start, removed ones stop, changed ones restart.
  core.settings.onApply((next) => work.mcp.reconfigure(next.config.mcp_servers));
  const app = serveApp(ctx, options);
  // No bridge URL (tests, `BRIDGE_URL=`): the server serves HTTP alone and events wait in the store.
  const forwarder = startForwarder(ctx, { bridgeUrl: ctx.urls.bridge, app });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= stopAll(core, access, work, { forwarder, app }));
  return { ctx, app, generatedAdminToken: core.admin.generated, localAdminToken: access.localAdminToken, close };
}

type Core = ReturnType<typeof openCore>;
type Access = ReturnType<typeof startAccess>;
type Work = ReturnType<typeof startWork>;

/** The store and what everything else is made with: the settings in force, the sessions, the admin token, the URLs. */
function openCore(options: RuntimeOptions, audit: () => PeopleParts["audit"]) {
  const { dataDir } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? pino({ level: "silent" });
  // The sections openStore reads (server, events) are start-only: the config file's are the ones in force.
  const store = openStore(options.config, dataDir, clock, log);
  const settings = openSettings(options.config, dataDir, store.db, log, audit);
  const sessions = new SessionService(
    store.transactor,
    new SessionStore(store.db, () => clock.now()),
    store.events,
    () => settings.agents.keys(),
  );
  const admin = ensureAdminToken(dataDir, options.adminToken);
  const advertised = advertisedUrls({
    host: options.host ?? "127.0.0.1",
    serverUrl: options.serverUrl ?? DEFAULT_SERVER_URL,
    bridgeUrl: options.bridgeUrl ?? "",
    publicUrl: settings.config.server.public_url,
    bridgePublicUrl: options.bridgePublicUrl,
  });
  return { ...store, dataDir, clock, log, settings, sessions, admin, shutdown: new AbortController(), advertised };
}

/** Who may call and what a revocation takes with it: notifications, pairing, the keys, the authenticator, Web Push. */
function startAccess(core: Core, options: RuntimeOptions) {
  const { db, transactor, sessions, events, clock, log, dataDir, settings } = core;
  const config = settings.config;
  const notifications = startNotifications({ db, transactor, sessions, events, clock, log, config, options });
  const pairing = new PairingService(db, () => clock.now());
  const e2e = new EndToEnd(
    core.serverId,
    ensureServerKey(dataDir),
    new ContentKeys(db, () => clock.now()),
    new Audiences(db, events),
    new ReplayGuard(new FloorLog(dataDir, (deviceId) => pairing.storedRelayFloor(deviceId))),
    config.bridge.require_e2e,
  );
  // A pairing that an app refused before this start (docs/security.md "Pairing") leaves no live device behind it.
  pairing.revokeUnused();
  const localAdminToken = generateToken(32);
  const people = new PeopleStore(db, clock);
  const auth = new Authenticator(db, core.admin.hash, localAdminToken, people);
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
    log: core.log,
    shutdown: core.shutdown.signal,
  });
  return { notifications, pairing, e2e, localAdminToken, people, auth, push };
}

/** What runs the chats: actions, assets, plugins, MCP servers, documents, the runner, search indexing, the people. */
function startWork(
  core: Core,
  access: Access,
  options: RuntimeOptions,
  ownerOf: (sessionId: string) => string | undefined,
) {
  const tools = startTools(core, access, options);
  const { db, transactor, events, clock, log, sessions, settings } = core;
  const documents = new DocumentService({
    db,
    transactor,
    events,
    clock,
    dataDir: core.dataDir,
    config: () => settings.config.documents,
    scrub: () => core.checkpointer.truncate(),
    embeddings: () => agentEmbeddings(settings.config, settings.agents.values()),
    tesseract: options.tesseractPath ?? DEFAULT_TESSERACT,
    log,
  });
  documents.resumeReadings();
  const personal = new PersonalStore(db, clock);
  const runner = startRunner(
    {
      events,
      sessions,
      transactor,
      clock,
      log,
      shutdown: core.shutdown.signal,
      notifications: tools.notifications,
      assets: tools.assets,
      plugins: tools.plugins,
      mcp: tools.mcp,
    },
    { settings, documents, personal, ownerOf },
  );
  const searchIndexer = startSearchIndexer(db, transactor, events, sessions, log, core.checkpointer);
  const people = startPeople({
    db,
    store: access.people,
    pairing: access.pairing,
    events,
    clock,
    sessions,
    runner,
    assets: tools.assets,
    transactor,
    documents,
    e2e: access.e2e,
    checkpoints: core.checkpointer,
    search: { indexer: searchIndexer },
    appUrl: core.settings.config.server.app_url ?? core.advertised.serverUrl,
    notifications: access.notifications,
    log,
  });
  return { ...tools, documents, personal, runner, searchIndexer, people };
}

/** The parts a run may call on: actions, assets, the plugins' tools and the MCP servers'. */
function startTools(core: Core, access: Access, options: RuntimeOptions) {
  const { db, transactor, sessions, clock, log, dataDir } = core;
  const config = core.settings.config;
  const notifications = access.notifications;
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
    events: core.events,
    pluginHas: (name) => plugins.tools.get(name) !== undefined,
  });
  return { notifications, actions, disk, assets, configDir, plugins, mcp };
}

/** The context every route and the forwarder share (context.ts), from the parts started above, in that order. */
function contextOf(core: Core, access: Access, work: Work, options: RuntimeOptions): ServerContext {
  const { settings, db, transactor, sessions, clock, dataDir, serverId } = core;
  const { assets, disk } = work;
  return {
    // The settings in force, read again by every call: a PATCH /settings changes them without a restart.
    get config() {
      return settings.config;
    },
    configDir: work.configDir,
    dataDir,
    disk,
    serverId,
    get agents() {
      return settings.agents;
    },
    db,
    transactor,
    checkpoints: core.checkpointer,
    events: core.events,
    sessions,
    auth: access.auth,
    pairing: access.pairing,
    e2e: access.e2e,
    clock,
    log: core.log,
    shutdown: core.shutdown.signal,
    urls: urlsOf(core, options),
    notifications: access.notifications,
    actions: work.actions,
    assets,
    plugins: work.plugins,
    runner: work.runner,
    push: access.push,
    search: new SearchService(db, transactor, work.searchIndexer, sessions),
    producers: new ProducerStore(db, clock),
    ...exportAndImport({ db, transactor, sessions, assets, clock, dataDir, serverId, settings }),
    mcp: work.mcp,
    speech: new SpeechService(() => settings.config),
    documents: work.documents,
    uploads: new UploadService({ dataDir, disk, clock, shutdown: core.shutdown.signal }),
    settings,
    personal: work.personal,
    ...work.people,
  };
}

/** ctx.urls: what apps are told and where the forwarder finds the bridge. */
function urlsOf(core: Core, options: RuntimeOptions): ServerContext["urls"] {
  const appUrl = core.settings.config.server.app_url;
  return {
    server: core.advertised.serverUrl,
    bridge: options.bridgeUrl ?? "",
    bridgePublic: core.advertised.bridgeUrl,
    ...(appUrl ? { app: appUrl } : {}),
  };
}

/** The HTTP app over the context; plugins load and MCP servers connect when it becomes ready. */
function serveApp(ctx: ServerContext, options: RuntimeOptions): FastifyInstance {
  const app = buildApp(ctx, {}, { appDir: options.appDir });
  // Plugins load once, when the app becomes ready (app.ready() / listen): a broken plugin stops the start.
  app.addHook("onReady", async () => {
    await ctx.plugins.load();
    // After the plugins, so an MCP tool named like a plugin tool is left out. Servers connect in parallel; one
    // that fails goes on restarting in the background and does not stop the start.
    await ctx.mcp.start();
  });
  return app;
}

/**
 * What close() does, one step after the other. Not the start's reverse: background work ends first, then the
 * network, then the store.
 */
async function stopAll(
  core: Core,
  access: Access,
  work: Work,
  serving: { forwarder: { stop(): Promise<void> }; app: FastifyInstance },
): Promise<void> {
  core.shutdown.abort();
  work.searchIndexer.stop();
  // In-flight runs end with request_cancelled/request_completed while the database is still open.
  await work.runner.shutdown();
  await work.mcp.stop();
  work.documents.close();
  await serving.forwarder.stop();
  await access.push?.close();
  await serving.app.close();
  access.e2e.calls.close();
  core.transactor.commitGroup();
  await core.checkpointer.stop();
  core.db.close();
}
