// Copying text where the async Clipboard API is missing. `navigator.clipboard` exists only in secure contexts: a page
// opened at http://<LAN address> has none, so the text is copied the old way, from a selected off-screen textarea
// with `document.execCommand("copy")` (deprecated but still honoured during a user gesture in every browser). Outside
// a DOM (React Native, Node) nothing is copied and the answer says so: the app shows the text to copy by hand.

export interface ClipboardHost {
  navigator?: { clipboard?: { writeText(text: string): Promise<void> } };
  document?: Document;
}

/** Copies `text`; resolves true when it was copied, false when neither way was available or both failed. */
export async function copyText(text: string, host: ClipboardHost = globalThis as ClipboardHost): Promise<boolean> {
  const clipboard = host.navigator?.clipboard;
  if (clipboard) {
    try {
      await clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no user gesture, permissions): try the selection below.
    }
  }
  return host.document ? copyBySelection(text, host.document) : false;
}

function copyBySelection(text: string, document: Document): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  // Off-screen but selectable (display:none cannot be selected); readonly keeps phones from opening the keyboard.
  area.style.position = "fixed";
  area.style.top = "-1000px";
  area.style.opacity = "0";
  document.body.append(area);
  const previous = document.activeElement as HTMLElement | null;
  try {
    area.select();
    area.setSelectionRange(0, text.length);
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
    previous?.focus?.();
  }
}
