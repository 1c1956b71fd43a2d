// "Share link" (the chat's owner): pick how long the link lives (7 days unless told), "Copy link" makes it, copies its
// url and shows it with its QR code for a phone across the table; "Live links" lists the chat's links (when made, when
// they expire) with Revoke each. The url is shown only once, right after it is made: the server keeps no key.
import { useEffect, useState } from "preact/hooks";
import type { ChatClient, SessionSummary, ShareLink, ShareLinkCreated } from "../../../client/index.ts";
import { DoneRow, ModalDialog } from "../components/modal-dialog.tsx";
import { QrCode } from "../components/qr-code.tsx";
import { useStore } from "../state/store.ts";
import { DEFAULT_LINK_LIFE, describeLink, LINK_LIVES, shareLinkErrorText } from "./share-links.ts";
import "./people.css"; // the dialog loads on first use, with its styles
import { ErrorNotice } from "../components/error-notice.tsx";

interface Props {
  session: SessionSummary;
  onClose(): void;
}

export function ShareLinksDialog({ session, onClose }: Props) {
  const { connection, env } = useStore();
  const [life, setLife] = useState<number>(DEFAULT_LINK_LIFE);
  const [made, setMade] = useState<{ link: ShareLinkCreated; copied: boolean } | undefined>();
  const [links, setLinks] = useState<ShareLink[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = (work: (client: ChatClient) => Promise<void>) => {
    const client = connection.paired.value?.client;
    if (!client) return;
    setProblem(undefined);
    setBusy(true);
    work(client)
      .catch((error: unknown) => setProblem(shareLinkErrorText(error)))
      .finally(() => setBusy(false));
  };
  const reload = async (client: ChatClient) => setLinks(await client.listShareLinks(session.id));
  useEffect(() => {
    run(reload);
  }, []);
  const create = () =>
    run(async (client) => {
      const link = await client.createShareLink(session.id, life);
      setMade({ link, copied: false });
      setMade({ link, copied: await env.copyText(link.url) });
      await reload(client);
    });
  const revoke = (token: string) =>
    run(async (client) => {
      await client.revokeShareLink(session.id, token);
      if (made?.link.token === token) setMade(undefined);
      await reload(client);
    });
  return (
    <ModalDialog class="confirm-dialog share-dialog share-links" labelledBy="share-links-title" onCancel={onClose}>
      <div class="stack">
        <h2 id="share-links-title">Share link</h2>
        <p class="muted small">
          Anyone with the link reads this chat as it is now, without pairing a device. Later messages are not shown.
        </p>
        <ErrorNotice problem={problem} />
        <div class="share-row">
          <label for="share-link-life">Expires after</label>
          <select id="share-link-life" value={life} onChange={(e) => setLife(Number(e.currentTarget.value))}>
            {LINK_LIVES.map((choice) => (
              <option key={choice.seconds} value={choice.seconds}>
                {choice.label}
              </option>
            ))}
          </select>
          <button type="button" class="primary" disabled={busy} onClick={create}>
            Copy link
          </button>
        </div>
        {made && <MadeLink link={made.link} copied={made.copied} />}
        <LiveLinks links={links} now={env.now()} onRevoke={revoke} busy={busy} />
        <DoneRow onDone={onClose} />
      </div>
    </ModalDialog>
  );
}

function MadeLink({ link, copied }: { link: ShareLinkCreated; copied: boolean }) {
  return (
    <div class="made-link" role="group" aria-label="New link">
      <p role="status" class="small">
        {copied ? "Copied. Anyone with this link can read the chat:" : "Copy this link by hand:"}
      </p>
      <input class="link-text" readOnly value={link.url} aria-label="Link" onFocus={(e) => e.currentTarget.select()} />
      <QrCode text={link.url} label="QR code of the link" />
    </div>
  );
}

interface LiveLinksProps {
  links: ShareLink[] | undefined;
  now: number;
  busy: boolean;
  onRevoke(token: string): void;
}

function LiveLinks({ links, now, busy, onRevoke }: LiveLinksProps) {
  if (links === undefined) return <p class="muted">Loading…</p>;
  if (links.length === 0) return <p class="muted">No live links.</p>;
  return (
    <section aria-labelledby="live-links-title">
      <h3 id="live-links-title">Live links</h3>
      <ul class="share-list" aria-label="Live links">
        {links.map((link, index) => {
          const text = describeLink(link, now);
          return (
            <li key={link.token} class="share-row">
              <span class="link-facts">{text}</span>
              <button
                type="button"
                class="ghost"
                disabled={busy}
                onClick={() => onRevoke(link.token)}
                aria-label={`Revoke link ${index + 1}: ${text}`}
              >
                Revoke
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
