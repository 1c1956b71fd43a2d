// A modal question with a destructive answer ("Delete chat?"): the native <dialog> (focus kept inside, Esc cancels),
// named by its heading so assistive tech and tests find it as the dialog "Delete chat?".
import { useRef } from "preact/hooks";
import { useModal } from "./modal-dialog.tsx";

interface Props {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ title, body, confirmLabel, onConfirm, onCancel }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useModal(ref);
  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      aria-labelledby="confirm-title"
      // the `open` attribute alone where the DOM has no showModal (tests' DOMs)
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
