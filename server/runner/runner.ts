// The request coordinator: starts runs (the user message and `request_started` commit together before the
// 202), keeps the registry of in-flight runs (one per session), cancels them, and ends them all at shutdown.
// It consumes the internal session_checkpoint to keep each run's live session current. What it refuses it
// throws as DomainErrors (server/errors.ts), so the runner works the same under any transport.
import type { FastifyBaseLogger } from "fastify";
import { randomUUID } from "node:crypto";
import type { Message, Session } from "../../client/wire/index.ts";
import type { AssetStore } from "../assets/store.ts";
import type { Clock } from "../clock.ts";
import type { ResolvedAgent } from "../config/agents.ts";
import type { Transactor } from "../db/transactor.ts";
import { conflict, notFound, unavailable } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import { createNotificationSink } from "../notifications/api.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import { expireForCompletedRequest } from "../notifications/retention.ts";
import type { McpManager } from "../mcp/manager.ts";
import type { PluginLoader } from "../plugins/loader.ts";
import type { RegisteredTool, ToolRunContext } from "../plugins/tools.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { createProvider, type Provider } from "../provider/index.ts";
import { CheckpointSignal } from "./checkpoints.ts";
import { ClientRequestIds } from "./client-request-ids.ts";
import { RunEvents } from "./events.ts";
import { ActiveRequests, recoverInterruptedRequests } from "./recovery.ts";
import { RunStopped } from "./interruption.ts";
import { runRequest, type RunDeps, type RunState } from "./run.ts";
import { TitleWriter, type TitleSettings } from "./titles.ts";

export interface RunnerParts {
  events: EventStore;
  sessions: SessionService;
  transactor: Transactor;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Aborted when the server begins to shut down: every run is cancelled with it. */
  shutdown: AbortSignal;
  /** Tools notify through it; request-scoped records are expired when their request ends. */
  notifications: NotificationService;
  /** Asset attachments are read from it when a request is built. */
  assets: Pick<AssetStore, "read">;
  /** The tools a run may call, once the config's plugins have loaded. */
  plugins: Pick<PluginLoader, "tools" | "load">;
  /** Bound on model/tool rounds in one request (config runner.max_tool_iterations). */
  maxToolIterations: number;
  /** Titles written by the model after a session's first reply (config titles); default on. */
  titles?: TitleSettings;
  /** Tools of MCP servers (server/mcp/): an agent gets those its `tools` list names. */
  mcp?: Pick<McpManager, "toolsFor">;
  /** A chat's document passages for a question (server/documents/turn-retrieval.ts); none when absent. */
  passages?: RunDeps["passages"];
  /** The custom instructions of the session's person (docs/settings.md "Personal"); read once when a run starts. */
  instructions?: (sessionId: string) => string;
}

/** What every start takes: streaming, options over the session's, and (regenerate) a model for this answer. */
/** Who wrote a user message a device sent (`metadata.sender`, docs/people.md "Visibility"). */
export interface MessageSender {
  person_id: string;
  name: string;
}

export interface TurnInput {
  stream: boolean;
  request_options?: Record<string, unknown> | undefined;
  model?: string | undefined;
  /** Remembered with the request in the transaction of its first save (client-request-ids.ts). */
  client_request_id?: string | undefined;
  /** The person who started it (set by the route, never by the body): a `write` share cancels only its own. */
  started_by?: string | undefined;
}

export interface SendInput extends TurnInput {
  content: string;
  /** Already validated by the route (send-input.ts); stored as the user message's metadata.attachments. */
  attachments: Array<Record<string, unknown>>;
}

/** Builds the provider of an agent. Replaceable so a benchmark can time deltas at the adapter's edge. */
export type ProviderFactory = (agent: ResolvedAgent) => Provider;

interface ActiveRun extends RunState {
  started_by: string | undefined;
  controller: AbortController;
  done: Promise<void>;
  /** Set just before the request scope ends: from then on the run's notification sinks resolve to null. */
  scopeEnded: boolean;
}

/** Finished request ids remembered in memory for a precise request_finished conflict; older ones are found in the event log. */
const RECENT_LIMIT = 10_000;

export class RequestRunner {
  readonly checkpoints = new CheckpointSignal();
  /** Sends by client_request_id, so a repeated send answers its first request_id (routes.ts). */
  readonly clientRequestIds: ClientRequestIds;
  providerFactory: ProviderFactory;
  private readonly active = new Map<string, ActiveRun>();
  private readonly busySessions = new Map<string, string>();
  private readonly recent = new Map<string, string>();
  /** One provider per agent's settings: settings changed live are a new object, so they get a new provider. */
  private readonly providers = new WeakMap<ResolvedAgent["settings"], Provider>();
  /** The durable registry of requests in flight; rows a crash left behind are ended at construction. */
  private readonly activeRequests: ActiveRequests;
  /** Request ids this runner ended at start because a previous process was cut off while running them. */
  readonly recovered: readonly string[];
  /** Writes a session's title after its first reply, outside any run (titles.ts). */
  private readonly titles: TitleWriter;

  constructor(private readonly ctx: RunnerParts) {
    this.activeRequests = new ActiveRequests(ctx.transactor.db);
    this.clientRequestIds = new ClientRequestIds(ctx.transactor.db);
    // Before anything can start a new request: no run of this process is in the table yet.
    this.recovered = recoverInterruptedRequests(ctx, this.activeRequests);
    this.providerFactory = (agent) =>
      createProvider(agent.settings, {
        clock: ctx.clock,
        log: ctx.log,
        readAsset: async (sessionId, assetId) => {
          const { info, bytes } = ctx.assets.read(sessionId, assetId);
          return { media_type: info.media_type, bytes };
        },
      });
    this.titles = new TitleWriter(
      ctx.titles ?? { enabled: true },
      ctx.sessions,
      (agent) => this.providerOf(agent),
      ctx.log,
    );
    this.checkpoints.subscribe((checkpoint) => {
      const run = this.active.get(checkpoint.request_id);
      if (run) run.live = checkpoint.session;
    });
    ctx.shutdown.addEventListener("abort", () => this.abortAll(), { once: true });
  }

  /** The request in flight for a session, if any. */
  activeRequest(sessionId: string): string | undefined {
    return this.busySessions.get(sessionId);
  }

  /**
   * Stores the user message and `request_started` (one transaction) and starts the run in the background.
   * Input is validated by the route; here only what depends on the run registry is refused.
   */
  start(sessionId: string, agent: ResolvedAgent, input: SendInput, sender?: MessageSender): string {
    return this.begin(sessionId, agent, input, (requestId) => {
      const metadata: Record<string, unknown> = { request_id: requestId };
      if (input.attachments.length > 0) metadata.attachments = input.attachments;
      if (sender) metadata.sender = sender;
      return this.ctx.sessions.append(sessionId, { role: "user", content: input.content, metadata }).session;
    });
  }

  /**
   * Starts a request whose history is the session rewritten by `rewrite` (regenerate, edit-and-resend: a new branch
   * of a turn, server/sessions/turn-versions.ts), saved with `session_updated` in the transaction of request_started.
   */
  startTurn(
    sessionId: string,
    agent: ResolvedAgent,
    input: TurnInput,
    rewrite: (session: Session, requestId: string) => Message[],
  ): string {
    return this.begin(sessionId, agent, input, (requestId) =>
      this.ctx.sessions.change(sessionId, (session) => ({
        next: { ...session, messages: rewrite(session, requestId) },
        events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
        result: (saved) => saved,
      })),
    );
  }

  /** Cancels the session's request (and its title) and waits until it has ended, also one started meanwhile. */
  async stopSession(sessionId: string): Promise<void> {
    this.titles.cancel(sessionId);
    for (
      let requestId = this.busySessions.get(sessionId);
      requestId !== undefined;
      requestId = this.busySessions.get(sessionId)
    ) {
      const run = this.active.get(requestId);
      if (!run) return;
      run.controller.abort(new Error("the session is being deleted"));
      await run.done;
    }
  }

  /** The checks every start makes, then the first save, request_started and the active row in one transaction. */
  private begin(
    sessionId: string,
    agent: ResolvedAgent,
    input: TurnInput,
    save: (requestId: string) => Session,
  ): string {
    if (this.ctx.shutdown.aborted)
      throw unavailable("shutting_down", "the server is shutting down; send again after it restarts");
    const busy = this.busySessions.get(sessionId);
    if (busy)
      throw conflict(
        "request_in_progress",
        `session ${sessionId} already has request ${busy} in flight; wait for its request_completed or cancel it`,
        { request_id: busy },
      );
    const requestId = `req_${randomUUID()}`;
    const events = new RunEvents(this.ctx.events, sessionId, requestId, (publish) =>
      this.ctx.transactor.run(() => {
        publish();
        this.activeRequests.delete(requestId);
      }),
    );
    const live = this.ctx.transactor.run(() => {
      const session = save(requestId);
      if (input.client_request_id !== undefined)
        this.clientRequestIds.remember(sessionId, input.client_request_id, requestId);
      this.ctx.events.publish(events.requestStarted(input.stream));
      this.activeRequests.add(requestId, sessionId, this.ctx.clock.now());
      return session;
    });
    this.launch(this.personalized(agent, sessionId), events, live, input);
    return requestId;
  }

  /** The person who started a running request (undefined once it has ended, or when no person started it). */
  startedBy(requestId: string): string | undefined {
    return this.active.get(requestId)?.started_by;
  }

  /** Aborts a run of this session: not_found for an unknown one, conflict request_finished for one that already ended. */
  cancel(sessionId: string, requestId: string): void {
    const run = this.active.get(requestId);
    if (run && run.session_id === sessionId) return run.controller.abort(new RunStopped("user"));
    this.ctx.sessions.get(sessionId);
    if (this.finished(sessionId, requestId))
      throw conflict("request_finished", `request ${requestId} already finished; there is nothing to cancel`);
    throw notFound("request_not_found", `session ${sessionId} has no request "${requestId}"`);
  }

  /** Cancels every run and waits until each has published request_completed. */
  async shutdown(): Promise<void> {
    this.abortAll();
    await Promise.all([...this.active.values()].map((run) => run.done));
    await this.titles.close();
  }

  private launch(agent: ResolvedAgent, events: RunEvents, live: Session, input: TurnInput): void {
    const controller = new AbortController();
    const run: ActiveRun = {
      request_id: events.requestId,
      session_id: events.sessionId,
      stream: input.stream,
      started_by: input.started_by,
      // The session's saved options, under the send's own (docs/sessions.md "Archive, pin, request options").
      request_options:
        live.request_options || input.request_options
          ? { ...live.request_options, ...input.request_options }
          : undefined,
      // Captured at start: a PATCH during the run applies to the next request, not to this one's later phases. A
      // regenerate may name a model for this one answer.
      model: input.model ?? live.model,
      signal: controller.signal,
      live,
      controller,
      done: Promise.resolve(),
      scopeEnded: false,
    };
    this.active.set(run.request_id, run);
    this.busySessions.set(run.session_id, run.request_id);
    run.done = this.execute(agent, run, events);
  }

  private async execute(agent: ResolvedAgent, run: ActiveRun, events: RunEvents): Promise<void> {
    try {
      await runRequest(
        {
          sessions: this.ctx.sessions,
          events: this.ctx.events,
          checkpoints: this.checkpoints,
          log: this.ctx.log,
          maxToolIterations: this.ctx.maxToolIterations,
          provider: this.providerOf(agent),
          agent,
          tools: () => this.toolsOf(agent),
          notify: (tool) => this.notifySink(run, tool),
          endRequestScope: () => this.endRequestScope(run),
          passages: this.ctx.passages ?? (async () => ({ passages: [] })),
        },
        run,
        events,
      );
    } catch (error) {
      // Only publishing itself can fail here (the database is gone); nothing is left to tell the client.
      this.ctx.log.error({ err: error, request_id: run.request_id }, "request run could not publish its end");
    } finally {
      this.active.delete(run.request_id);
      this.busySessions.delete(run.session_id);
      this.remember(run.request_id, run.session_id);
      // After request_completed and with the session free: the title request never delays or joins the user's.
      if (!run.signal.aborted) this.titles.afterRequest(agent, run.session_id);
    }
  }

  /** Retention until_request_complete (docs/notifications.md "Retention"): best effort, so a failure here never fails the request. */
  private endRequestScope(run: ActiveRun): void {
    // Nothing the run's tools notify from here on could be expired by this request any more.
    run.scopeEnded = true;
    try {
      expireForCompletedRequest(this.ctx, run.request_id, run.session_id);
    } catch (error) {
      this.ctx.log.warn(
        { err: error, request_id: run.request_id },
        "request-scoped notifications could not be expired",
      );
    }
  }

  private async toolsOf(agent: ResolvedAgent): Promise<RegisteredTool[]> {
    await this.ctx.plugins.load();
    const mcpTools = this.ctx.mcp?.toolsFor(agent.tools) ?? [];
    return [...this.ctx.plugins.tools.forAgent(agent.tools), ...mcpTools];
  }

  /**
   * The tool-facing sink, bound to the request. It resolves to null once the run is no longer active (its
   * request scope ended), so a tool that outlives its request (it ignored ctx.signal) creates nothing that
   * would follow `request_completed` and never expire.
   */
  private notifySink(run: ActiveRun, tool: RegisteredTool): ToolRunContext["notify"] {
    const sink = createNotificationSink(this.ctx.notifications, {
      sessionId: run.session_id,
      requestId: run.request_id,
      plugin: tool.plugin,
      log: this.ctx.log,
    });
    return async (input) => {
      if (run.scopeEnded || this.active.get(run.request_id) !== run) {
        this.ctx.log.debug(
          { request_id: run.request_id, tool: tool.name },
          "a tool notified after its request ended; ignored",
        );
        return null;
      }
      return sink(input);
    };
  }

  private providerOf(agent: ResolvedAgent): Provider {
    let provider = this.providers.get(agent.settings);
    if (!provider) this.providers.set(agent.settings, (provider = this.providerFactory(agent)));
    return provider;
  }

  /** The person's instructions follow the agent's system prompt; the run keeps what they were when it started. */
  private personalized(agent: ResolvedAgent, sessionId: string): ResolvedAgent {
    const instructions = this.ctx.instructions?.(sessionId).trim();
    if (!instructions) return agent;
    const system_prompt = agent.system_prompt ? `${agent.system_prompt}\n\n${instructions}` : instructions;
    return { ...agent, system_prompt };
  }

  private abortAll(): void {
    for (const run of this.active.values()) run.controller.abort(new RunStopped("shutdown"));
    void this.titles.close();
  }

  private remember(requestId: string, sessionId: string): void {
    this.recent.set(requestId, sessionId);
    if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
  }

  private finished(sessionId: string, requestId: string): boolean {
    if (this.recent.get(requestId) === sessionId) return true;
    return this.ctx.events.firstOfRequest(requestId, sessionId) !== undefined;
  }
}
