// The chat header's "Share link" (its owner's): opens the share-link sheet, loaded on first use.
import { useState } from "preact/hooks";
import type { SessionSummary } from "../../../client/index.ts";
import { IconButton } from "../components/icon-button.tsx";
import { lazyComponent } from "../components/lazy-component.tsx";

const ShareLinksDialog = lazyComponent(() => import("./share-links-dialog.tsx"), "ShareLinksDialog", "Share link");

export function ShareLinkButton({ session }: { session: SessionSummary }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton label="Share link" title="A read-only link to this chat, for anyone" onClick={() => setOpen(true)}>
        <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" />
        <path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
      </IconButton>
      {open && <ShareLinksDialog session={session} onClose={() => setOpen(false)} />}
    </>
  );
}
