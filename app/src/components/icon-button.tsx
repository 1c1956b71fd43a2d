// An icon-only button of the app's rows of controls (the chat's header, the bar under a message): its accessible
// name is `label`, its drawing the SVG shapes given as children in a 24x24 box, hidden from screen readers.
import type { ComponentChildren } from "preact";

/** The pen of Rename chat and Edit message. */
export const PEN_PATH = "M4 20h4L19 9l-4-4L4 16zM13 7l4 4";
/** The pin of Pin chat and of a pinned chat's row in the list. */
export const PIN_PATH = "M9 4h6l-1 5 4 4H6l4-4zM12 13v7";
/** The bin of Delete chat and Delete message. */
export const BIN_PATH = "M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6";

interface Props {
  label: string;
  title?: string;
  /** The smaller size of the controls under a message. */
  small?: boolean;
  /** A toggle's state (aria-pressed). */
  pressed?: boolean;
  /** Whether the menu it opens is open (aria-expanded). */
  expanded?: boolean;
  disabled?: boolean;
  onClick(): void;
  children: ComponentChildren;
}

export function IconButton({ label, title, small, pressed, expanded, disabled, onClick, children }: Props) {
  return (
    <button
      type="button"
      class={small ? "icon-button small" : "icon-button"}
      aria-label={label}
      aria-pressed={pressed}
      aria-expanded={expanded}
      title={title}
      disabled={disabled}
      onClick={onClick}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true">
        {children}
      </svg>
    </button>
  );
}
