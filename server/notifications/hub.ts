// The notification service of one runtime: the application scope (durable store), session scopes on demand,
// the owner epoch, the history limit, and the retention boundaries that run in the background. Built once
// by createRuntime and kept on ServerContext.notifications.
import type { ServerContext } from "../context.ts";
import { bestEffort, type Emit } from "./events.ts";
import { ApplicationRepo, SessionRepo } from "./scopes.ts";
import { NotificationService } from "./service.ts";
import { SqliteNotificationStore } from "./sqlite-store.ts";
import type { ApplicationNotificationStore } from "./store.ts";

export type HubContext = Pick<ServerContext, "config" | "db" | "transactor" | "events" | "sessions" | "clock" | "log">;

export interface NotificationHubOptions {
  /**
   * Identity of the hosting runtime owner for until_server_restart (docs/notifications.md "Owner epoch").
   * A new epoch expires what an older one left pending; an application replacement passes the same one.
   */
  ownerEpoch: string;
  /** Defaults to the durable SQLite store in the server's database. */
  store?: ApplicationNotificationStore;
}

export class NotificationHub {
  readonly ownerEpoch: string;
  readonly historyLimit: number;
  readonly application: NotificationService;
  private readonly emit: Emit;

  constructor(
    private readonly ctx: HubContext,
    options: NotificationHubOptions,
  ) {
    this.ownerEpoch = options.ownerEpoch;
    this.historyLimit = ctx.config.application.notifications.history_limit;
    const store = options.store ?? new SqliteNotificationStore(ctx.db, ctx.transactor);
    this.emit = bestEffort(ctx.events, ctx.transactor, ctx.log);
    this.application = new NotificationService(new ApplicationRepo(store, this.emit, this.historyLimit), ctx.clock, this.ownerEpoch);
  }

  /** The producer operations of one session (404 session_not_found when it does not exist). */
  session(sessionId: string): NotificationService {
    return new NotificationService(
      new SessionRepo(this.ctx.sessions, this.ctx.transactor, sessionId, this.emit, this.historyLimit),
      this.ctx.clock,
      this.ownerEpoch,
    );
  }
}

/** The hub of a runtime; embedding code that skipped it gets a clear error instead of undefined access. */
export function requireHub(ctx: Pick<ServerContext, "notifications">): NotificationHub {
  if (!ctx.notifications) throw new Error("notifications are not set up on this ServerContext (createRuntime builds them)");
  return ctx.notifications;
}
