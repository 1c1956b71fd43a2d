// The app's modal dialogs (share, share link, remove a person, approvals, search, confirm): the native <dialog> opened
// with showModal on mount (focus kept inside, the page behind inert) and closed on unmount. showModal where the
// browser has it (every current one); tests' DOMs without it get the `open` attribute alone where a dialog asks.
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** Opens the dialog as a modal once mounted and closes it when it unmounts. */
export function useModal(ref: RefObject<HTMLDialogElement>) {
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open && typeof dialog.showModal === "function") dialog.showModal();
    return () => dialog?.open && dialog.close?.();
  }, []);
}

interface Props {
  class: string;
  /** The id of the heading that names the dialog... */
  labelledBy?: string;
  /** ...or its name where it shows no heading. */
  label?: string;
  /** Escape, or the browser's own cancel: the dialog stays until the caller unmounts it. */
  onCancel(): void;
  children: ComponentChildren;
}

/** A modal named by its heading (or a label); Escape calls `onCancel` instead of closing it behind the app's back. */
export function ModalDialog({ class: className, labelledBy, label, onCancel, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useModal(ref);
  return (
    <dialog
      ref={ref}
      class={className}
      aria-labelledby={labelledBy}
      aria-label={label}
      onCancel={(event) => (event.preventDefault(), onCancel())}
    >
      {children}
    </dialog>
  );
}

/** The closing row of a dialog that changes things as it goes (share, share link): nothing to confirm, only Done. */
export function DoneRow({ onDone }: { onDone(): void }) {
  return (
    <div class="row-actions">
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
