// A chat's pending approvals (docs/app.md "Approvals"). They come from the session's notifications, which the client
// library keeps current from the record's events: an approval answered on another device, expired or cancelled
// leaves the list, and its card and dialog close at once. On a phone the first one opens as a modal dialog; "Later"
// leaves it as a card in the chat. On a wide screen the cards sit above the composer. Which approvals wait, and which
// were answered or put off here, is the chat controller's (state/chat-approvals.ts); this is its view.
import { useEffect, useState } from "preact/hooks";
import { ModalDialog } from "../components/modal-dialog.tsx";
import { useChat } from "../state/chat-context.ts";
import { useStore } from "../state/store.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import type { Approval } from "./approval.ts";
import type { ApprovalCard } from "./approval-card.tsx";

type Card = typeof ApprovalCard;

export function ApprovalPanel() {
  const { env } = useStore();
  const { approvals } = useChat();
  const [Card, setCard] = useState<Card | undefined>();
  const wide = useWideScreen();
  const pending = approvals.pending.value;
  const asking = pending.length > 0;
  // The card (and its styles) load when a first approval arrives: most sessions never see one.
  useEffect(() => {
    if (!asking || Card) return;
    import("./approval-card.tsx").then(
      (loaded) => setCard(() => loaded.ApprovalCard),
      (error: unknown) => env.report("loading the approval card failed", error),
    );
  }, [asking]);
  if (!asking || !Card) return null;
  const later = approvals.later.value;
  const modal = wide ? undefined : pending.find((approval) => !later.has(approval.record.id));
  const inline = pending.filter((approval) => approval !== modal);
  return (
    <>
      {inline.length > 0 && (
        <section class="approvals" aria-label="Approvals">
          {inline.map((approval) => (
            <Card key={approval.record.id} approval={approval} variant="inline" onAnswered={approvals.answered} />
          ))}
        </section>
      )}
      {modal && (
        <ApprovalDialog
          key={modal.record.id}
          Card={Card}
          approval={modal}
          onAnswered={approvals.answered}
          onLater={() => approvals.putOff(modal.record.id)}
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
  return (
    // Escape means "Later": the approval stays open as a card in the chat.
    <ModalDialog class="approval-dialog" label="Approval needed" onCancel={onLater}>
      <Card approval={approval} variant="dialog" onAnswered={onAnswered} onLater={onLater} />
    </ModalDialog>
  );
}
