// `api.notifications` of the plugin contract (docs/runner.md "Plugins") and the tool-facing sink `ctx.notify`.
// The API validates with zod and throws typed errors to the plugin (NotificationValidationError with issue
// paths, NotificationConflictError, NotificationNotFoundError); the sink never throws and resolves to null on
// any failure, so a notification problem never fails a tool or a request.
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { NotificationService } from "./notification-service.ts";
import {
  moveInputSchema,
  parseProducer,
  patchInputSchema,
  producerInputSchema,
  type MoveInput,
  type PatchInput,
  type ProducerInput,
} from "./input.ts";
import type { KeyedMove, ScopeService } from "./scope-service.ts";

export interface ProducerOperations {
  /** Publishes the key's state: updates its active occurrence, or starts a new one. */
  create(input: ProducerInput): NotificationRecord;
  /** The same publication as create (docs/notifications.md "Producer API"). */
  updateByKey(input: ProducerInput): NotificationRecord;
  /** Patches the content of one active record. */
  updateById(id: string, patch: PatchInput): NotificationRecord;
  resolve(input: MoveInput): NotificationRecord;
  expire(input: MoveInput): NotificationRecord;
  /** Interaction moves: pending_response/suspended -> responded, pending_response -> suspended or cancelled. */
  respond(input: MoveInput): NotificationRecord;
  suspend(input: MoveInput): NotificationRecord;
  cancel(input: MoveInput): NotificationRecord;
  /** Active records (with include_terminal, terminal ones too), in creation order. */
  list(options?: { include_terminal?: boolean }): NotificationRecord[];
  /** Every retained record, terminal ones included (bounded by history_limit). */
  history(): NotificationRecord[];
}

export interface ApplicationOperations extends ProducerOperations {
  /** The authoritative current state (the reconnect snapshot): the active application records. */
  snapshot(): { notifications: NotificationRecord[] };
}

export interface NotificationApi {
  application: ApplicationOperations;
  session(sessionId: string): ProducerOperations;
}

export function createNotificationApi(service: NotificationService, pluginName: string): NotificationApi {
  return {
    application: {
      ...operations(service.application, pluginName),
      snapshot: () => ({ notifications: service.application.list(false) }),
    },
    session: (sessionId) => operations(service.session(sessionId), pluginName),
  };
}

function operations(service: ScopeService, plugin: string): ProducerOperations {
  const publish = (input: ProducerInput) => service.publish(parseProducer(producerInputSchema, input), plugin);
  const move = (name: KeyedMove) => (input: MoveInput) =>
    service.move(parseProducer(moveInputSchema, input), name, plugin);
  return {
    create: publish,
    updateByKey: publish,
    updateById: (id, patch) => service.updateById(id, parseProducer(patchInputSchema, patch)),
    resolve: move("resolve"),
    expire: move("expire"),
    respond: move("respond"),
    suspend: move("suspend"),
    cancel: move("cancel"),
    list: (options) => service.list(options?.include_terminal ?? false),
    history: () => service.list(true),
  };
}

export interface SinkBinding {
  sessionId: string;
  requestId: string;
  /** source.plugin of what the sink publishes (the tool's plugin, or "tools"). */
  plugin?: string;
  log?: { debug(object: object, message: string): void };
}

export type NotificationSink = (input: unknown) => Promise<NotificationRecord | null>;

/**
 * ctx.notify for a tool: publishes a session notification of the bound session, tagged with the bound
 * request unless the input names one. Resolves to the record, or to null on any failure; never throws.
 */
export function createNotificationSink(service: NotificationService, binding: SinkBinding): NotificationSink {
  return async (input) => {
    try {
      const withRequest =
        input && typeof input === "object" && !Array.isArray(input)
          ? { request_id: binding.requestId, ...input }
          : input;
      const parsed = parseProducer(producerInputSchema, withRequest);
      return service.session(binding.sessionId).publish(parsed, binding.plugin ?? "tools");
    } catch (error) {
      binding.log?.debug({ err: error }, "notification sink swallowed a failure");
      return null;
    }
  };
}
