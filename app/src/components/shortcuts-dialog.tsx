// "Keyboard shortcuts": the list the menu opens (the bindings live in state/shortcuts.ts).
import { useEffect, useRef } from "preact/hooks";
import { SHORTCUTS } from "../state/shortcuts.ts";

export function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open && typeof dialog.showModal === "function") dialog.showModal();
  }, []);
  const mod = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent) ? "⌘" : "Ctrl";
  return (
    <dialog ref={ref} class="confirm-dialog" aria-labelledby="shortcuts-title" onClose={onClose} onCancel={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl class="shortcuts">
        {SHORTCUTS.map((shortcut) => (
          <div key={shortcut.keys}>
            <dt>
              <kbd>{shortcut.keys.replace("Mod", mod)}</kbd>
            </dt>
            <dd>{shortcut.does}</dd>
          </div>
        ))}
      </dl>
      <div class="row-actions">
        <button type="button" class="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
