// The open chat's pending approvals (docs/app.md "Approvals"): read from the session's notifications, which the
// client library keeps current from the record's events, so an approval answered on another device, expired or
// cancelled leaves at once. One answered here leaves at once too (before the server's event); one put off with
// "Later" stays as a card instead of the phone's dialog.
import { computed, effect, signal, untracked, type ReadonlySignal } from "@preact/signals";
import type { PresentedNotification } from "../../../client/index.ts";
import { approvalOf, type Approval } from "../approvals/approval.ts";
import type { Connection } from "./connection.ts";

export interface ChatApprovals {
  /** The approvals waiting for an answer, oldest first. */
  readonly pending: ReadonlySignal<readonly Approval[]>;
  /** Record ids put off with "Later". */
  readonly later: ReadonlySignal<ReadonlySet<string>>;
  answered(record_id: string): void;
  putOff(record_id: string): void;
  /** Follows the session's notifications while paired; returns the function that stops. */
  follow(): () => void;
}

export function createChatApprovals(connection: Connection, session_id: string | undefined): ChatApprovals {
  const items = signal<readonly PresentedNotification[]>([]);
  const answered = signal<ReadonlySet<string>>(new Set());
  const later = signal<ReadonlySet<string>>(new Set());
  const add = (set: typeof answered, id: string) => void (set.value = new Set([...set.value, id]));
  return {
    pending: computed(() =>
      items.value
        .map((item) => approvalOf(item.record))
        .filter((approval): approval is Approval => approval !== undefined && !answered.value.has(approval.record.id)),
    ),
    later,
    answered: (id) => add(answered, id),
    putOff: (id) => add(later, id),
    follow() {
      if (!session_id) return () => undefined;
      return effect(() => {
        const view = connection.paired.value?.client.notifications.session(session_id);
        if (!view) return void (items.value = []);
        return untracked(() => {
          items.value = view.get();
          return view.subscribe((next) => (items.value = next));
        });
      });
    },
  };
}
