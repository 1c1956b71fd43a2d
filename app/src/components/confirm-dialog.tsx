// A modal question with a destructive answer ("Delete chat?"): the native <dialog> (focus kept inside, Esc cancels),
// named by its heading so assistive tech and tests find it as the dialog "Delete chat?".
import { useEffect, useRef } from "preact/hooks";

interface Props {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ title, body, confirmLabel, onConfirm, onCancel }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    // showModal where the browser has it (every current one); the `open` attribute alone elsewhere (tests' DOMs).
    if (dialog && !dialog.open && typeof dialog.showModal === "function") dialog.showModal();
    return () => dialog?.open && dialog.close?.();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      aria-labelledby="confirm-title"
      open={
        typeof HTMLDialogElement === "undefined" || !("showModal" in HTMLDialogElement.prototype) ? true : undefined
      }
      onCancel={(event) => (event.preventDefault(), onCancel())}
    >
      <h2 id="confirm-title">{title}</h2>
      <p>{body}</p>
      <div class="row-actions">
        <button type="button" class="ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm} autoFocus>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
