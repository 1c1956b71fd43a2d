// What the server's parts share, built once at start (server/runtime.ts, in dependency order) and handed to the
// HTTP routes and the forwarder. Services never import it: each one's constructor names exactly the parts it uses.
import type { FastifyBaseLogger } from "fastify";
import type { ResolvedAgent } from "./config/agents.ts";
import type { Config } from "./config/schema.ts";
import type { Checkpointer } from "./db/checkpointer.ts";
import type { Db } from "./db/database.ts";
import type { Transactor } from "./db/transactor.ts";
import type { EventStore } from "./events/event-store.ts";
import type { SessionService } from "./sessions/session-service.ts";
import type { Authenticator } from "./auth/authenticator.ts";
import type { PairingService } from "./pairing/pairing-service.ts";
import type { NotificationService } from "./notifications/notification-service.ts";
import type { ActionRegistry } from "./actions/registry.ts";
import type { AssetStore } from "./assets/store.ts";
import type { PluginLoader } from "./plugins/loader.ts";
import type { RequestRunner } from "./runner/runner.ts";
import type { McpManager } from "./mcp/manager.ts";
import type { SpeechService } from "./speech/speech-service.ts";
import type { UploadService } from "./uploads/upload-service.ts";
import type { DocumentService } from "./documents/document-service.ts";
import type { Clock } from "./clock.ts";
import type { EndToEnd } from "./e2e/end-to-end.ts";
import type { PushService } from "./push/push-service.ts";
import type { SearchService } from "./search/search-service.ts";
import type { ProducerStore } from "./producers/producer-store.ts";
import type { Exporter } from "./export/exporter.ts";
import type { Importer } from "./export/importer.ts";
import type { DiskWrites } from "./db/disk.ts";
import type { SettingsService } from "./settings/settings-service.ts";
import type { PersonalStore } from "./personal/personal-store.ts";
import type { PeopleStore } from "./people/people-store.ts";
import type { ChatAudiences } from "./people/chat-audiences.ts";
import type { AuditLog } from "./people/audit-log.ts";
import type { ChatGuard } from "./people/chat-guard.ts";
import type { NotificationAudience } from "./people/notification-audience.ts";
import type { PeopleService } from "./people/people-service.ts";
import type { ShareLinkService } from "./sharing/share-link-service.ts";

export interface ServerContext {
  /** The settings in force (the config file with DATA_DIR/settings.json over it), changed live by PATCH /settings. */
  readonly config: Config;
  /** Folder that relative config paths (plugins) resolve against. */
  configDir: string;
  dataDir: string;
  /** How a person's files (uploads, imports) are written to dataDir: node:fs, or a test's full disk. */
  disk: DiskWrites;
  serverId: string;
  readonly agents: Map<string, ResolvedAgent>;
  db: Db;
  transactor: Transactor;
  /** WAL truncation after an erasure, so no page of deleted content stays in the WAL file (docs/sessions.md). */
  checkpoints: Pick<Checkpointer, "truncate">;
  events: EventStore;
  sessions: SessionService;
  auth: Authenticator;
  /** Pairing codes and devices; the pairing routes, the auth hook and the forwarder share it. */
  pairing: PairingService;
  /** The server's key pair, the content keys and every seal (docs/security.md). */
  e2e: EndToEnd;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Public addresses: told to apps when they pair; `bridge` empty when the server runs without a bridge. */
  /** server: where apps reach this server; bridge: where the forwarder finds the bridge; bridgePublic: the bridge URL apps are given, when it differs; app: where pair_url opens the app, when not at server (pairing/urls.ts). */
  urls: { server: string; bridge: string; bridgePublic?: string; app?: string };
  /** Aborted when the server begins to shut down: background work ends with it. */
  shutdown: AbortSignal;
  /** Application and session notifications (server/notifications/). */
  notifications: NotificationService;
  /** Application and session actions registered by plugins (server/actions/). */
  actions: ActionRegistry;
  /** Session-owned image attachments (server/assets/). */
  assets: AssetStore;
  /** The config's plugins and the tools they registered (server/plugins/). */
  plugins: PluginLoader;
  /** The request runner and its in-flight runs (server/runner/). */
  runner: RequestRunner;
  /** Web Push to closed apps (server/push/, docs/push.md); undefined when the config has no `push`. */
  push?: PushService | undefined;
  /** Full-text search of messages and titles (server/search/). */
  search: SearchService;
  /** Producer tokens: notifications from outside (server/producers/). */
  producers: ProducerStore;
  /** Export of chats as JSON and Markdown, and import of such files and ChatGPT's (server/export/). */
  exporter: Exporter;
  importer: Importer;
  /** MCP servers, their tools and the approvals of their calls (server/mcp/). */
  mcp: McpManager;
  /** Dictation and read-aloud through the config's speech backends (server/speech/). */
  speech: SpeechService;
  /** Documents: a person's library and each chat's copies (server/documents/). */
  documents: DocumentService;
  /** Bodies too large for one relayed call, sent in parts (server/uploads/). */
  uploads: UploadService;
  /** The settings in force and their changes (server/settings/); `config` and `agents` above read them. */
  settings: SettingsService;
  /** Each person's own settings and prompts (server/personal/). */
  personal: PersonalStore;
  /** People, who owns and sees which chat, the audit log (server/people/, docs/people.md). */
  people: PeopleService;
  personStore: PeopleStore;
  audiences: ChatAudiences;
  audit: AuditLog;
  /** Who an application notification is for, and per-person dismissals. */
  notificationAudience: NotificationAudience;
  /** The one check of a caller against a chat (every chat route, through server/http/session-access.ts). */
  chatGuard: ChatGuard;
  /** Share links of chats: their sealed snapshots, served to anyone holding a link (server/sharing/). */
  shareLinks: ShareLinkService;
}
