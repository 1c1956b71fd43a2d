// The pieces createRuntime (runtime.ts) wires together, each opened or started with what it needs: the store, search
// indexing, notifications, export and import, people, the request runner and the settings in force. Kept apart so
// createRuntime reads as the order things start in.
import type { FastifyBaseLogger } from "fastify";
import { join } from "node:path";
import { type Clock } from "./clock.ts";
import { resolveServerId } from "./config/server-id.ts";
import type { Config } from "./config/schema.ts";
import type { ServerContext } from "./context.ts";
import { startCheckpointer, type Checkpointer } from "./db/checkpointer.ts";
import { openDatabase, type Db } from "./db/database.ts";
import { Transactor } from "./db/transactor.ts";
import { EventStore } from "./events/event-store.ts";
import { SessionService } from "./sessions/session-service.ts";
import { NotificationService } from "./notifications/notification-service.ts";
import { expireFromEarlierOwners, PROCESS_OWNER_EPOCH } from "./notifications/retention.ts";
import { SqliteNotificationStore } from "./notifications/sqlite-store.ts";
import { AssetStore } from "./assets/store.ts";
import { RequestRunner, type RunnerParts } from "./runner/runner.ts";
import { sendBodyLimit } from "./runner/send-input.ts";
import { SearchIndexer } from "./search/indexer.ts";
import { Exporter } from "./export/exporter.ts";
import { DocumentService } from "./documents/document-service.ts";
import { TurnRetrieval } from "./documents/turn-retrieval.ts";
import { Importer } from "./export/importer.ts";
import { ImportLedger } from "./export/ledger.ts";
import { Meta } from "./db/meta.ts";
import { SettingsService } from "./settings/settings-service.ts";
import { liveTitles } from "./settings/live-parts.ts";
import { PersonalStore } from "./personal/personal-store.ts";
import { PeopleService, type PeopleServiceParts } from "./people/people-service.ts";
import { ChatAudiences } from "./people/chat-audiences.ts";
import { AuditLog } from "./people/audit-log.ts";
import { ChatGuard } from "./people/chat-guard.ts";
import { NotificationAudience } from "./people/notification-audience.ts";
import { announceNewDevices } from "./people/new-device-notice.ts";
import { tellAffectedPeople } from "./people/audit-notices.ts";
import { ShareLinkService } from "./sharing/share-link-service.ts";
import { ShareLinkStore } from "./sharing/share-link-store.ts";

/** The SQLite file in the data folder. */
export const DATABASE_FILE = "server.sqlite";

/** The SQLite file and what sits right on it: the server id, the WAL checkpointer, group commits, the event log. */
export function openStore(config: Config, dataDir: string, clock: Clock, log: FastifyBaseLogger) {
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
export function startSearchIndexer(
  db: Db,
  transactor: Transactor,
  events: EventStore,
  sessions: SessionService,
  log: FastifyBaseLogger,
  checkpointer: Pick<Checkpointer, "truncate">,
): SearchIndexer {
  const indexer = new SearchIndexer({
    db,
    transactor,
    events,
    sessions,
    truncateWal: () => checkpointer.truncate(),
    onError: (error) => log.error({ err: error }, "search indexing failed"),
    onSkipped: (sessionId, error) => log.error({ err: error, session_id: sessionId }, "search index skipped a session"),
  });
  indexer.start();
  return indexer;
}

/** Session and application notifications (docs/notifications.md), with what an earlier process left pending ended. */
export function startNotifications(parts: {
  db: Db;
  transactor: Transactor;
  sessions: SessionService;
  events: EventStore;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
  /** RuntimeOptions.ownerEpoch (tests pin it). */
  options: { ownerEpoch?: string | undefined };
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
export function exportAndImport(parts: {
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

export type PeopleParts = Pick<
  ServerContext,
  "people" | "personStore" | "audiences" | "audit" | "chatGuard" | "notificationAudience" | "shareLinks"
>;

/**
 * People (server/people, docs/people.md): who owns and sees which chat, the audit log, and the notices a person's
 * devices get (a new device of theirs, an admin's action on their chats or devices).
 */
export function startPeople(
  parts: Omit<PeopleServiceParts, "audiences" | "audit" | "shareLinks"> & {
    notifications: NotificationService;
    log: FastifyBaseLogger;
    /** Where a share link opens the app. */
    appUrl: string;
  },
): PeopleParts {
  const audiences = new ChatAudiences(parts.db);
  const shareLinks = startShareLinks(parts, audiences);
  const audit = new AuditLog(parts.db, parts.clock);
  const notificationAudience = new NotificationAudience(parts.db, parts.clock);
  announceNewDevices(parts.pairing, parts.notifications, parts.log, () => notificationAudience.shared());
  tellAffectedPeople(audit, parts.notifications, parts.log);
  return {
    people: new PeopleService({ ...parts, audiences, audit, shareLinks }),
    personStore: parts.store,
    audiences,
    audit,
    chatGuard: new ChatGuard(audiences, audit),
    notificationAudience,
    shareLinks,
  };
}

/** Share links (server/sharing, docs/people.md "Share links"): a chat's snapshot, sealed, for anyone with the link. */
function startShareLinks(
  parts: Pick<PeopleServiceParts, "db" | "clock" | "sessions" | "store" | "assets"> & { appUrl: string },
  audiences: ChatAudiences,
): ShareLinkService {
  return new ShareLinkService({
    store: new ShareLinkStore(parts.db),
    clock: parts.clock,
    sessions: parts.sessions,
    ownerOf: (sessionId) => {
      const owner = parts.store.get(audiences.of(sessionId)!.owner_id)!;
      return { id: owner.id, name: owner.name };
    },
    readAsset: (sessionId, assetId) => {
      const { info, bytes } = parts.assets.read(sessionId, assetId);
      return { media_type: info.media_type, bytes };
    },
    appUrl: () => parts.appUrl,
  });
}

/**
 * Requests run (server/runner/) with what is in force when each starts: the settings (PATCH /settings), the chat's
 * documents, and its owner's custom instructions (docs/settings.md "Personal").
 */
export function startRunner(
  parts: Omit<RunnerParts, "passages" | "maxToolIterations" | "titles" | "instructions">,
  live: {
    settings: SettingsService;
    documents: DocumentService;
    personal: PersonalStore;
    ownerOf: (sessionId: string) => string | undefined;
  },
): RequestRunner {
  const { settings, documents, personal, ownerOf } = live;
  const retrieval = new TurnRetrieval(documents.store, () => settings.config);
  return new RequestRunner({
    ...parts,
    passages: (sessionId, question, agent, signal) => retrieval.retrieve(sessionId, question, agent, signal),
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
export function openSettings(
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
