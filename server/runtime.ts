// Builds a running server from its inputs: opens the SQLite file, ensures the admin token, assembles the
// context and the HTTP app. main.ts adds the process concerns (listening, signals); tests call this directly.
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { join } from "node:path";
import pino from "pino";
import { buildApp } from "./app.ts";
import { ensureAdminToken } from "./auth/admin-token.ts";
import { Authenticator } from "./auth/authenticator.ts";
import { generateToken } from "./auth/tokens.ts";
import { PairingService } from "./pairing/pairing-service.ts";
import { systemClock, type Clock } from "./clock.ts";
import { DEFAULT_SERVER_URL } from "./config/load.ts";
import { resolveServerId } from "./config/server-id.ts";
import type { Config } from "./config/schema.ts";
import type { ServerContext } from "./context.ts";
import { startCheckpointer } from "./db/checkpointer.ts";
import { openDatabase, type Db } from "./db/database.ts";
import { Transactor } from "./db/transactor.ts";
import { EventStore } from "./events/event-store.ts";
import { SessionService } from "./sessions/session-service.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { ActionRegistry } from "./actions/registry.ts";
import { NotificationService } from "./notifications/notification-service.ts";
import { expireFromEarlierOwners, PROCESS_OWNER_EPOCH } from "./notifications/retention.ts";
import { SqliteNotificationStore } from "./notifications/sqlite-store.ts";
import { AssetStore } from "./assets/store.ts";
import { PluginLoader } from "./plugins/loader.ts";
import { RequestRunner, type RunnerParts } from "./runner/runner.ts";
import { sendBodyLimit } from "./runner/send-input.ts";
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
import { SearchIndexer } from "./search/indexer.ts";
import { SearchService } from "./search/search-service.ts";
import { ProducerStore } from "./producers/producer-store.ts";
import { Exporter } from "./export/exporter.ts";
import { SpeechService } from "./speech/speech-service.ts";
import { DocumentService } from "./documents/document-service.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { passagesFor } from "./documents/retrieval.ts";
import { Importer } from "./export/importer.ts";
import { ImportLedger } from "./export/ledger.ts";
import { nodeDisk, type DiskWrites } from "./db/disk.ts";
import { Meta } from "./db/meta.ts";
import { SettingsService } from "./settings/settings-service.ts";
import { livePushConfig, liveTitles } from "./settings/live-parts.ts";
import { PersonalStore } from "./personal/personal-store.ts";
import { PeopleStore } from "./people/people-store.ts";
import { PeopleService, type PeopleServiceParts } from "./people/people-service.ts";
import { ChatAudiences } from "./people/chat-audiences.ts";
import { AuditLog } from "./people/audit-log.ts";
import { ChatGuard } from "./people/chat-guard.ts";
import { NotificationAudience } from "./people/notification-audience.ts";
import { announceNewDevices } from "./people/new-device-notice.ts";
import { tellAffectedPeople } from "./people/audit-notices.ts";

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

export const DATABASE_FILE = "server.sqlite";

/** The SQLite file and what sits right on it: the server id, the WAL checkpointer, group commits, the event log. */
function openStore(config: Config, dataDir: string, clock: Clock, log: FastifyBaseLogger) {
  const databaseFile = join(dataDir, DATABASE_FILE);
  const db = openDatabase(databaseFile);
  let serverId: string;
  try {
    serverId = resolveServerId(db, config.server.server_id);
  } catch (error) {
    db.close();
    throw error;
  }
  const checkpointer = startCheckpointer(db, databaseFile, 250, (error) =>
    log.warn({ err: error }, "WAL checkpoints moved back to the main thread"),
  );
  const transactor = new Transactor(db, (error) =>
    log.error({ err: error }, "group commit of events failed; they were never visible"),
  );
  const events = new EventStore(
    db,
    transactor,
    { maxEvents: config.events.retention_max_events, maxAgeSeconds: config.events.retention_max_age_seconds },
    () => clock.now(),
  );
  return { db, serverId, checkpointer, transactor, events };
}

/** The search index, kept up with the event log from now on (server/search/). */
function startSearchIndexer(
  db: Db,
  transactor: Transactor,
  events: EventStore,
  sessions: SessionService,
  log: FastifyBaseLogger,
): SearchIndexer {
  const indexer = new SearchIndexer({
    db,
    transactor,
    events,
    sessions,
    onError: (error) => log.error({ err: error }, "search indexing failed"),
    onSkipped: (sessionId, error) => log.error({ err: error, session_id: sessionId }, "search index skipped a session"),
  });
  indexer.start();
  return indexer;
}

/** Session and application notifications (docs/notifications.md), with what an earlier process left pending ended. */
function startNotifications(parts: {
  db: Db;
  transactor: Transactor;
  sessions: SessionService;
  events: EventStore;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
  options: RuntimeOptions;
}): NotificationService {
  const { sessions, config } = parts;
  const notifications = new NotificationService({
    ...parts,
    store: new SqliteNotificationStore(parts.db, parts.transactor),
    historyLimit: config.application.notifications.history_limit,
    ownerEpoch: parts.options.ownerEpoch ?? PROCESS_OWNER_EPOCH,
  });
  // Before anything can publish: what an earlier owner epoch left pending ends now (docs/notifications.md "Retention").
  expireFromEarlierOwners(sessions, notifications);
  return notifications;
}

/** Export and import (docs/export.md) share the ledger of which chat each imported session came from. */
function exportAndImport(parts: {
  db: Db;
  transactor: Transactor;
  sessions: SessionService;
  assets: AssetStore;
  clock: Clock;
  dataDir: string;
  serverId: string;
  settings: Pick<SettingsService, "config" | "agents">;
}): Pick<ServerContext, "exporter" | "importer"> {
  const { db, sessions, assets, clock, serverId } = parts;
  const ledger = new ImportLedger(db);
  return {
    exporter: new Exporter({ db, sessions, assets, ledger, clock, serverId }),
    importer: new Importer({
      ...parts,
      ledger,
      agents: () => parts.settings.agents.keys(),
      limits: { maxMessageChars: sendBodyLimit(parts.settings.config.assets.max_bytes) },
    }),
  };
}

type PeopleParts = Pick<
  ServerContext,
  "people" | "personStore" | "audiences" | "audit" | "chatGuard" | "notificationAudience"
>;

/**
 * People (server/people, docs/people.md): who owns and sees which chat, the audit log, and the notices a person's
 * devices get (a new device of theirs, an admin's action on their chats or devices).
 */
function startPeople(
  parts: Omit<PeopleServiceParts, "audiences" | "audit"> & {
    notifications: NotificationService;
    log: FastifyBaseLogger;
  },
): PeopleParts {
  const audiences = new ChatAudiences(parts.db);
  const audit = new AuditLog(parts.db, parts.clock);
  const notificationAudience = new NotificationAudience(parts.db, parts.clock);
  announceNewDevices(parts.pairing, parts.notifications, parts.log, () => notificationAudience.shared());
  tellAffectedPeople(audit, parts.notifications, parts.log);
  return {
    people: new PeopleService({ ...parts, audiences, audit }),
    personStore: parts.store,
    audiences,
    audit,
    chatGuard: new ChatGuard(audiences, audit),
    notificationAudience,
  };
}

/**
 * Requests run (server/runner/) with what is in force when each starts: the settings (PATCH /settings), the chat's
 * documents, and its owner's custom instructions (docs/settings.md "Personal").
 */
function startRunner(
  parts: Omit<RunnerParts, "passages" | "maxToolIterations" | "titles" | "instructions">,
  live: {
    settings: SettingsService;
    documents: DocumentService;
    personal: PersonalStore;
    ownerOf: (sessionId: string) => string | undefined;
  },
): RequestRunner {
  const { settings, documents, personal, ownerOf } = live;
  return new RequestRunner({
    ...parts,
    passages: (sessionId, question) =>
      passagesFor(documents.store, sessionId, question, settings.config.documents.inline_tokens),
    get maxToolIterations() {
      return settings.config.runner.max_tool_iterations;
    },
    titles: liveTitles(settings),
    instructions: (sessionId) => {
      const owner = ownerOf(sessionId);
      return owner === undefined ? "" : personal.settings(owner).instructions;
    },
  });
}

/**
 * The settings in force (docs/settings.md): the config file with DATA_DIR/settings.json over it. What is read once at
 * start below is this; what is read again at each use (ctx.config, ctx.agents, the live parts) follows PATCH /settings.
 */
function openSettings(
  fileConfig: Config,
  dataDir: string,
  db: Db,
  log: FastifyBaseLogger,
  audit: () => PeopleParts["audit"],
): SettingsService {
  return new SettingsService({
    fileConfig,
    dataDir,
    meta: new Meta(db),
    log,
    // Called by a PATCH only, after the runtime is made (the audit log comes with the people).
    audit: (who) => audit().record({ actor: who, action: "settings_changed", person_id: null }),
  });
}

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
  const documents = new DocumentService({
    db,
    transactor,
    events,
    clock,
    dataDir,
    config: () => settings.config.documents,
    scrub: () => checkpointer.truncate(),
  });
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
