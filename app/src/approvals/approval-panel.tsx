// A chat's pending approvals (docs/app.md "Approvals"). They come from the session's notifications, which the client
// library keeps current from the record's events: an approval answered on another device, expired or cancelled
// leaves the list, and its card and dialog close at once. On a phone the first one opens as a modal dialog; "Later"
// leaves it as a card in the chat. On a wide screen the cards sit above the composer.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { PresentedNotification } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { useObservable } from "../state/use-observable.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import { approvalOf, type Approval } from "./approval.ts";
import type { ApprovalCard } from "./approval-card.tsx";

type Card = typeof ApprovalCard;

const none: readonly PresentedNotification[] = [];

export function ApprovalPanel({ session_id }: { session_id: string }) {
  const { connection, env } = useStore();
  const client = connection.paired.value?.client;
  const [Card, setCard] = useState<Card | undefined>();
  const wide = useWideScreen();
  const items = useObservable(client?.notifications.session(session_id), none);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const [later, setLater] = useState<ReadonlySet<string>>(new Set());
  const approvals = useMemo(
    () =>
      items
        .map((item) => approvalOf(item.record))
        .filter((a): a is Approval => a !== undefined && !answered.has(a.record.id)),
    [items, answered],
  );
  const asking = approvals.length > 0;
  // The card (and its styles) load when a first approval arrives: most sessions never see one.
  useEffect(() => {
    if (!asking || Card) return;
    import("./approval-card.tsx").then(
      (loaded) => setCard(() => loaded.ApprovalCard),
      (error: unknown) => env.report("loading the approval card failed", error),
    );
  }, [asking]);
  if (!asking || !Card) return null;
  const onAnswered = (id: string) => setAnswered((before) => new Set([...before, id]));
  const modal = wide ? undefined : approvals.find((approval) => !later.has(approval.record.id));
  const inline = approvals.filter((approval) => approval !== modal);
  return (
    <>
      {inline.length > 0 && (
        <section class="approvals" aria-label="Approvals">
          {inline.map((approval) => (
            <Card key={approval.record.id} approval={approval} variant="inline" onAnswered={onAnswered} />
          ))}
        </section>
      )}
      {modal && (
        <ApprovalDialog
          key={modal.record.id}
          Card={Card}
          approval={modal}
          onAnswered={onAnswered}
          onLater={() => setLater((before) => new Set([...before, modal.record.id]))}
        />
      )}
    </>
  );
}

interface DialogProps {
  Card: Card;
  approval: Approval;
  onAnswered: (id: string) => void;
  onLater: () => void;
}

function ApprovalDialog({ Card, approval, onAnswered, onLater }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open && typeof element.showModal === "function") element.showModal();
    return () => element?.open && element.close();
  }, []);
  return (
    // Escape means "Later": the approval stays open as a card in the chat.
    <dialog
      ref={dialog}
      class="approval-dialog"
      aria-label="Approval needed"
      onCancel={(event) => (event.preventDefault(), onLater())}
    >
      <Card approval={approval} variant="dialog" onAnswered={onAnswered} onLater={onLater} />
    </dialog>
  );
}
