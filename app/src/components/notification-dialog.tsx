// A modal notification as a real dialog (focus trapped by the browser's <dialog>, Escape closes = dismiss).
import { useEffect, useRef } from "preact/hooks";
import type { PresentedNotification } from "../../../client/index.ts";
import { NotificationCard } from "./notification-card.tsx";

export function NotificationDialog({ item }: { item: PresentedNotification }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [item.record.id]);
  return (
    <dialog
      ref={dialog}
      class="notification-dialog"
      aria-label={item.record.title}
      onCancel={(event) => event.preventDefault()}
    >
      <NotificationCard item={item} variant="dialog" />
    </dialog>
  );
}
