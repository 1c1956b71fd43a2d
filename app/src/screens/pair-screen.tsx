// Pairing, as simple as a companion app's: opened from the QR code's pair_url, it shows one "Pair" button with
// the device name prefilled; otherwise the code and the bridge address are typed. Every failure says what
// happened and what to do next.
import { useState } from "preact/hooks";
import { pair, parsePairUrl, serverFingerprint, type Credentials } from "../../../client/index.ts";
import { adopt, revokedNotice } from "../state/connection.ts";
import { describeError } from "../state/errors.ts";
import { navigate } from "../state/router.ts";
import { defaultBridgeUrl, defaultDeviceName } from "../state/device-name.ts";

interface Props {
  code?: string;
  bridge?: string;
  /** pair_url's `key`: with it the library proves the answer is the server's; without it the fingerprint is shown. */
  serverKey?: string;
}

export function PairScreen({ code: linkedCode, bridge: linkedBridge, serverKey: linkedKey }: Props) {
  const fromLink = linkedCode !== undefined && linkedBridge !== undefined;
  const [code, setCode] = useState(linkedCode ?? "");
  const [bridge, setBridge] = useState(linkedBridge ?? defaultBridgeUrl());
  const [name, setName] = useState(defaultDeviceName());
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  /** Paired by typed code: the server key's fingerprint, shown to compare before going on. */
  const [paired, setPaired] = useState<Credentials | undefined>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    // A pasted pairing link carries both the code and the bridge.
    const link = parsePairUrl(code.trim());
    try {
      const serverKey = link ? link.key : linkedKey;
      const credentials = await pair({ bridgeUrl: link?.bridge ?? bridge.trim(), code: (link?.code ?? code.trim()).toUpperCase(), deviceName: name.trim() || defaultDeviceName(), serverKey });
      if (serverKey === undefined && serverFingerprint(credentials)) return setPaired(credentials);
      await adopt(credentials);
      navigate({ name: "sessions" }, { replace: true });
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  if (paired) return <PairedStep credentials={paired} />;

  return (
    <main class="pair-screen">
      <div class="pair-card">
        <img class="pair-logo" src="./icons/icon.svg" alt="" width="64" height="64" />
        <h1>{fromLink ? "Pair this device" : "Connect to your server"}</h1>
        {revokedNotice.value && (
          <p class="notice warning" role="status">
            This device was removed from the server. Pair it again to keep chatting.
          </p>
        )}
        <p class="lead">
          {fromLink
            ? "You opened a pairing link. Check the device name and tap Pair."
            : "On the server's computer, run npm run pair (or open Devices → Add device) and scan the QR code with this device's camera, or type the code here."}
        </p>
        <form onSubmit={submit} class="stack">
          <label>
            Device name
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={100} autoComplete="off" required />
          </label>
          {!fromLink && (
            <>
              <label>
                Pairing code
                <input value={code} onInput={(e) => setCode(e.currentTarget.value)} placeholder="7K3QF-9MXTA or a pairing link" autoCapitalize="characters" autoComplete="one-time-code" spellcheck={false} required />
              </label>
              <label>
                Bridge address
                <input value={bridge} onInput={(e) => setBridge(e.currentTarget.value)} type="url" inputMode="url" spellcheck={false} required />
              </label>
            </>
          )}
          {problem && (
            <p class="notice error" role="alert">
              {problem}
            </p>
          )}
          <button type="submit" class="primary large" disabled={busy}>
            {busy ? "Pairing…" : "Pair"}
          </button>
          {fromLink && (
            <button type="button" class="ghost" onClick={() => navigate({ name: "pair" }, { replace: true })}>
              Enter a code instead
            </button>
          )}
        </form>
        {!fromLink && (
          <p class="muted small">
            On the server's own machine? <a href="#/devices">Manage devices</a> with the admin token to show a QR code.
          </p>
        )}
      </div>
    </main>
  );
}

/**
 * After pairing by typed code the device trusted the server key the bridge passed on: its fingerprint is shown to
 * compare with `npm run pair` and the Devices screen before the app goes on (docs/security.md "Pairing").
 */
function PairedStep({ credentials }: { credentials: Credentials }) {
  const proceed = async () => {
    await adopt(credentials);
    navigate({ name: "sessions" }, { replace: true });
  };
  return (
    <main class="pair-screen">
      <div class="pair-card">
        <h1>Paired</h1>
        <p class="lead">Check that this fingerprint is the one npm run pair (or Devices → Add device) shows for your server:</p>
        <p class="code fingerprint" aria-label="Server fingerprint">
          {serverFingerprint(credentials)}
        </p>
        <p class="muted small">If it differs, someone between this device and your server answered instead of it: remove this device under Devices.</p>
        <button type="button" class="primary large" onClick={() => void proceed()}>
          Continue
        </button>
      </div>
    </main>
  );
}
