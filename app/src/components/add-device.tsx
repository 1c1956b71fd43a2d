// "Add device": a fresh pairing code as a QR code of pair_url, the link as text with a Copy button (to open it on
// this computer's other browser, or send it to a phone), the code itself for typing, and a countdown to its expiry
// (then a button for a new one).
import { useEffect, useState } from "preact/hooks";
import type { PairingCreated } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { QrCode } from "./qr-code.tsx";

export function AddDevice({
  code,
  forName,
  onNewCode,
  onClose,
}: {
  code: PairingCreated;
  /** Whose device it becomes, when the code was made for someone (People → Pair a device). */
  forName?: string;
  onNewCode: () => void;
  onClose: () => void;
}) {
  const { env } = useStore();
  const [now, setNow] = useState(env.now());
  const [copied, setCopied] = useState<string | undefined>();
  useEffect(() => {
    const timer = setInterval(() => setNow(env.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.round((Date.parse(code.expires_at) - now) / 1000));
  const url = code.pair_url;
  const copy = () =>
    void env.copyText(url).then((done) => setCopied(done ? "Copied" : "Copy failed: select the link and copy it"));
  return (
    <section class="add-device card" aria-label="Add device">
      <h2>Scan with the new device</h2>
      {forName && <p class="lead">This device will be {forName}’s.</p>}
      {left > 0 ? (
        <>
          <QrCode text={url} label={`QR code: pairing link with code ${code.code}`} />
          <div class="pair-link" role="group" aria-label="Pairing link">
            <a class="pair-link-text" href={url}>
              {url}
            </a>
            <button type="button" class="secondary" onClick={copy}>
              Copy
            </button>
          </div>
          {copied && (
            <p class="muted small" role="status">
              {copied}
            </p>
          )}
          <p class="code" aria-label="Pairing code">
            {code.code}
          </p>
          <p class="muted" role="timer">
            Expires in {Math.floor(left / 60)}:{String(left % 60).padStart(2, "0")}
          </p>
          <p class="muted small">Or open this app on the device and type the code.</p>
          {code.fingerprint && (
            <p class="muted small">
              Server fingerprint: <span aria-label="Server fingerprint">{code.fingerprint}</span>
            </p>
          )}
        </>
      ) : (
        <p class="notice warning">This code has expired.</p>
      )}
      <div class="row-actions">
        <button type="button" class="secondary" onClick={onNewCode}>
          New code
        </button>
        <button type="button" class="ghost" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}
