// A session's notifications: inline in the chat on phones (modals as a dialog), in a rail beside the chat on
// wide screens (where the library already shows modals inline). A chat without notifications shows neither.
import type { PresentedNotification } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { useObservable } from "../state/use-observable.ts";
import { NotificationCard } from "./notification-card.tsx";
import { NotificationDialog } from "./notification-dialog.tsx";
import { isApprovalRecord } from "../approvals/approval.ts";

const none: readonly PresentedNotification[] = [];

export function SessionNotifications({ session_id, placement }: { session_id: string; placement: "inline" | "rail" }) {
  const client = useStore().connection.paired.value?.client;
  const items = useObservable(client?.notifications.session(session_id), none).filter(
    (item) => item.decision.presented && !isApprovalRecord(item.record),
  ); // approvals: ApprovalPanel
  const modal = items.find((item) => item.decision.presented && item.decision.presentation === "modal");
  const inline = items.filter((item) => item !== modal);
  // No notification: no rail either, so the chat keeps the whole width (the rail appears with the first one).
  if (items.length === 0) return null;
  const cards = inline.map((item) => <NotificationCard key={item.record.id} item={item} variant="inline" />);
  return (
    <>
      {placement === "rail" ? (
        <aside class="rail" aria-label="Session notifications">
          <h2 class="rail-title">Notifications</h2>
          {cards}
        </aside>
      ) : (
        cards.length > 0 && (
          <section class="inline-notifications" aria-label="Session notifications">
            {cards}
          </section>
        )
      )}
      {modal && <NotificationDialog item={modal} />}
    </>
  );
}
