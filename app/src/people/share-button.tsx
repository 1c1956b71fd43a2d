// The chat header's "Share chat" (its owner's, on a server with more than one person): opens the Share dialog.
import { useState } from "preact/hooks";
import type { SessionSummary } from "../../../client/index.ts";
import { IconButton } from "../components/icon-button.tsx";
import { lazyComponent } from "../components/lazy-component.tsx";

const ShareDialog = lazyComponent(() => import("./share-dialog.tsx"), "ShareDialog", "Share dialog");

export function ShareButton({ session }: { session: SessionSummary }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton label="Share chat" title="Share with people on this server" onClick={() => setOpen(true)}>
        <circle cx="18" cy="5" r="2.5" />
        <circle cx="6" cy="12" r="2.5" />
        <circle cx="18" cy="19" r="2.5" />
        <path d="M8.2 10.8 15.8 6.2M8.2 13.2l7.6 4.6" />
      </IconButton>
      {open && <ShareDialog session={session} onClose={() => setOpen(false)} />}
    </>
  );
}
