// Producer operations and dismissal on one scope (docs/notifications.md "Producer API", "States and transitions").
// Every operation is one atomic mutation of the scope through its ScopeStore: it finds the key's active
// occurrence, checks the lifecycle table and the operation-occurrence guard, writes the next revision and
// emits its event. A terminal or absent occurrence means a new occurrence with a new id.
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { Clock } from "../clock.ts";
import { NotificationConflictError, NotificationNotFoundError, NotificationValidationError } from "./errors.ts";
import { notificationEvent, type Happening } from "./events.ts";
import type { ParsedMoveInput, ParsedPatchInput, ParsedProducerInput } from "./input.ts";
import { isAwaiting, nextStatus, type Move } from "./lifecycle.ts";
import { applyContent, DETAIL_FIELD, newRecord, nextRevision, type Stamp } from "./records.ts";
import type { ScopeStore } from "./scopes.ts";
import type { NotificationStore } from "./store.ts";

export type KeyedMove = Exclude<Move, "update" | "dismiss">;

export interface DismissInput {
  /** The revision the client saw; for a legacy record without revision, its updated_at. */
  expected_revision?: number | string | undefined;
  reason?: string | undefined;
}

/** The event each move announces. */
const HAPPENING: Record<Move, Happening> = {
  update: "updated",
  dismiss: "dismissed",
  resolve: "resolved",
  expire: "expired",
  respond: "updated",
  suspend: "updated",
  cancel: "updated",
};

export class ScopeService {
  constructor(
    private readonly store: ScopeStore,
    private readonly clock: Clock,
    private readonly ownerEpoch: string,
  ) {}

  /** create and update by key: the same publication (docs/notifications.md "Producer API"). */
  publish(input: ParsedProducerInput, plugin: string): NotificationRecord {
    return this.store.mutate((collection, emit) => {
      const stamp = this.stamp();
      const active = collection.activeByKey(input.key);
      if (!active) {
        const created = newRecord(this.store.scope, input, plugin, stamp);
        collection.put(created);
        emit(notificationEvent(this.store.scope, "created", created));
        return created;
      }
      guardOperation(active, input.operation_id);
      if (input.kind !== undefined && input.kind !== active.kind)
        throw NotificationValidationError.at("kind", `the active occurrence of "${input.key}" is a ${active.kind}`);
      return this.write(collection, emit, this.transition(active, "update", stamp), input, "update", stamp);
    });
  }

  updateById(id: string, patch: ParsedPatchInput): NotificationRecord {
    return this.store.mutate((collection, emit) => {
      const stamp = this.stamp();
      const current = collection.get(id);
      if (!current) throw new NotificationNotFoundError(`no notification "${id}"`);
      guardOperation(current, patch.operation_id);
      return this.write(collection, emit, this.transition(current, "update", stamp), patch, "update", stamp);
    });
  }

  /** resolve, expire, respond, suspend, cancel by key. */
  move(input: ParsedMoveInput, move: KeyedMove, plugin: string): NotificationRecord {
    return this.store.mutate((collection, emit) => {
      const stamp = this.stamp();
      const active = collection.activeByKey(input.key);
      if (active) guardOperation(active, input.operation_id);
      const base = active ?? this.occurrenceFor(input, plugin, stamp);
      const moved = { ...this.transition(base, move, stamp), ...detail(move, input.detail) };
      // A new occurrence created directly in its target state starts at revision 1.
      const next = active ? moved : { ...moved, revision: 1 };
      return this.write(collection, emit, next, input, move, stamp);
    });
  }

  dismiss(id: string, input: DismissInput): NotificationRecord {
    return this.store.mutate((collection, emit) => {
      const stamp = this.stamp();
      const current = collection.get(id);
      if (!current) throw new NotificationNotFoundError(`no notification "${id}"`);
      if (input.expected_revision !== undefined && !matchesToken(current, input.expected_revision)) {
        throw new NotificationConflictError(
          `notification "${id}" is at revision ${current.revision ?? current.updated_at}`,
          current,
          "stale_revision",
        );
      }
      const dismissal = { dismissed_at: stamp.now, ...(input.reason !== undefined ? { reason: input.reason } : {}) };
      const next = { ...this.transition(current, "dismiss", stamp), dismissal };
      collection.put(next);
      emit(notificationEvent(this.store.scope, "dismissed", next));
      return next;
    });
  }

  /** Expires the records `select` picks that are still awaiting (pending or pending_response). Idempotent. */
  expireWhere(select: (collection: NotificationStore) => NotificationRecord[], reason: string): NotificationRecord[] {
    return this.store.mutate((collection, emit) => {
      const stamp = this.stamp();
      const expired: NotificationRecord[] = [];
      for (const record of select(collection)) {
        if (!isAwaiting(record) || nextStatus(record, "expire") === undefined) continue;
        const next = { ...this.transition(record, "expire", stamp), expiration: { reason, expired_at: stamp.now } };
        collection.put(next);
        emit(notificationEvent(this.store.scope, "expired", next));
        expired.push(next);
      }
      return expired;
    });
  }

  list(includeTerminal = false): NotificationRecord[] {
    return this.store.read((collection) => collection.list({ includeTerminal }));
  }

  /** list() as JSON array text, for routes (no parse and re-serialize of every record). */
  listJson(includeTerminal = false): string | Uint8Array {
    return this.store.read((collection) => collection.listJson({ includeTerminal }));
  }

  get(id: string): NotificationRecord | undefined {
    return this.store.read((collection) => collection.get(id));
  }

  private write(
    collection: NotificationStore,
    emit: (event: ReturnType<typeof notificationEvent>) => void,
    record: NotificationRecord,
    content: ParsedPatchInput & { retention?: ParsedProducerInput["retention"]; request_id?: string | undefined },
    move: Move,
    stamp: Stamp,
  ): NotificationRecord {
    const next = applyContent(this.store.scope, record, content, stamp);
    collection.put(next);
    emit(notificationEvent(this.store.scope, HAPPENING[move], next));
    return next;
  }

  /** The next revision in the state the table gives for `move`, or a conflict carrying the current record. */
  private transition(record: NotificationRecord, move: Move, stamp: Stamp): NotificationRecord {
    const to = nextStatus(record, move);
    if (to === undefined) {
      throw new NotificationConflictError(
        `cannot ${move} a ${record.kind} that is ${record.status}`,
        record,
        "invalid_transition",
      );
    }
    return nextRevision(record, stamp, to);
  }

  /** A new occurrence for a move on a key without an active one: needs enough content to exist. */
  private occurrenceFor(input: ParsedMoveInput, plugin: string, stamp: Stamp): NotificationRecord {
    const { severity, title, detail: _detail, ...rest } = input;
    if (severity === undefined || title === undefined) {
      throw new NotificationNotFoundError(
        `no active occurrence for key "${input.key}" (give severity and title to create one)`,
      );
    }
    return newRecord(this.store.scope, { ...rest, severity, title }, plugin, stamp);
  }

  private stamp(): Stamp {
    return { now: new Date(this.clock.now()).toISOString(), ownerEpoch: this.ownerEpoch };
  }
}

/**
 * The operation-occurrence guard: an operation id names one execution of the key's stream, so a call
 * carrying one that is not the active occurrence's (a late update of an older operation) is refused.
 */
function guardOperation(active: NotificationRecord, operationId: string | undefined): void {
  if (operationId === undefined || active.operation_id === operationId) return;
  throw new NotificationConflictError(
    `operation ${operationId} is not the active occurrence's (${active.operation_id ?? "none"}) for key "${active.key}"`,
    active,
    "operation_mismatch",
  );
}

/** Revision match; a legacy record without revision is matched by its updated_at. */
function matchesToken(record: NotificationRecord, token: number | string): boolean {
  return record.revision === undefined ? token === record.updated_at : token === record.revision;
}

function detail(move: KeyedMove, value: ParsedMoveInput["detail"]): Partial<NotificationRecord> {
  return value === undefined ? {} : { [DETAIL_FIELD[move]]: value };
}
