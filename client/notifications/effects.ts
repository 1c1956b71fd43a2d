// Observing ui_effects (UI rules 1-2, docs/client.md "The rules, numbered"). An effect is a command of the revision that carries it: it executes
// once per (connection, scope, notification id, revision), only while that revision is pending, and turns into
// invalidations of the targets it names. Records from history (include_terminal) never come here.
import type { Invalidations, InvalidationSource } from "./invalidations.ts";
import { isPendingRevision, revisionOf, type ClientRecord, type ScopeRef } from "./record.ts";

export class EffectObserver {
  private readonly seen = new Set<string>();

  constructor(
    private readonly connectionId: string,
    private readonly invalidations: Invalidations,
  ) {}

  /** Returns whether this observation executed the record's effects. */
  observe(scope: ScopeRef, record: ClientRecord): boolean {
    const effects = record.ui_effects;
    if (!effects || !isPendingRevision(record)) return false;
    const revision = revisionOf(record);
    const sessionId = scope.scope === "session" ? scope.session_id : undefined;
    const key = [this.connectionId, scope.scope, sessionId ?? "", record.id, String(revision)].join("\u0000");
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    const source: InvalidationSource = {
      scope: scope.scope,
      notification_id: record.id,
      revision,
      ...(sessionId ? { session_id: sessionId } : {}),
    };
    for (const session_id of effects.reload_session_ids ?? [])
      this.invalidations.invalidate({ kind: "session", session_id }, source);
    if (effects.reload_sessions_list === true) this.invalidations.invalidate({ kind: "sessions_list" }, source);
    if (effects.reload_application_actions === true)
      this.invalidations.invalidate({ kind: "application_actions" }, source);
    return true;
  }
}
