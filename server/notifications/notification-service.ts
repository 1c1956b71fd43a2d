// The notification service of one runtime: the application scope (durable store), session scopes on demand,
// the owner epoch and the history limit. Built once by createRuntime and kept on ServerContext.notifications.
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../clock.ts";
import type { Transactor } from "../db/transactor.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { bestEffort, type Emit, type EventPublisher } from "./events.ts";
import { ApplicationScopeStore, SessionScopeStore } from "./scopes.ts";
import { ScopeService } from "./scope-service.ts";
import type { TransactionalNotificationStore } from "./store.ts";

export interface NotificationServiceParts {
  /** Where application notifications live (the SQLite store of the server's database). */
  store: TransactionalNotificationStore;
  /** Session notifications live in session metadata, changed through the session service. */
  sessions: SessionService;
  transactor: Transactor;
  events: EventPublisher;
  clock: Clock;
  log: Pick<FastifyBaseLogger, "warn">;
  /** Terminal records kept per scope (config application.notifications.history_limit). */
  historyLimit: number;
  /**
   * Identity of the hosting runtime owner for until_server_restart (docs/notifications.md "Owner epoch").
   * A new epoch expires what an older one left pending; an application replacement passes the same one.
   */
  ownerEpoch: string;
}

export class NotificationService {
  readonly ownerEpoch: string;
  readonly historyLimit: number;
  readonly application: ScopeService;
  private readonly emit: Emit;

  constructor(private readonly parts: NotificationServiceParts) {
    this.ownerEpoch = parts.ownerEpoch;
    this.historyLimit = parts.historyLimit;
    this.emit = bestEffort(parts.events, parts.transactor, parts.log);
    this.application = new ScopeService(
      new ApplicationScopeStore(parts.store, this.emit, this.historyLimit),
      parts.clock,
      this.ownerEpoch,
    );
  }

  /** The producer operations of one session (404 session_not_found when it does not exist). */
  session(sessionId: string): ScopeService {
    return new ScopeService(
      new SessionScopeStore(this.parts.sessions, this.parts.transactor, sessionId, this.emit, this.historyLimit),
      this.parts.clock,
      this.ownerEpoch,
    );
  }
}
