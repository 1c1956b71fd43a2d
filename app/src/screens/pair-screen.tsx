// Pairing, as simple as a companion app's. Opened from a pairing link (the QR code's pair_url, or the link
// `npm start` prints) it pairs at once and lands in a new chat: nothing to type. Otherwise the code is typed (or a
// link pasted) with the bridge address the server gave in /app-config.json. Every failure says what happened and
// what to do next; a used or expired link says how to get a new one.
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

export function PairScreen() {
  const { pairing, connection } = useStore();
  const state = pairing.state.value;
  if (state.phase === "fingerprint") return <FingerprintStep fingerprint={state.fingerprint} />;
  if (state.phase === "pairing" && state.fromLink) {
    return (
      <main class="pair-screen">
        <div class="pair-card" role="status">
          <img class="pair-logo" src="./icons/icon.svg" alt="" width="64" height="64" />
          <h1>Pairing this browser…</h1>
          <p class="lead">You opened a pairing link: this browser is being paired as “{pairing.deviceName()}”.</p>
        </div>
      </main>
    );
  }
  return (
    <main class="pair-screen">
      <div class="pair-card">
        <img class="pair-logo" src="./icons/icon.svg" alt="" width="64" height="64" />
        <h1>Connect to your server</h1>
        {connection.revokedNotice.value && (
          <p class="notice warning" role="status">
            This device was removed from the server. Pair it again to keep chatting.
          </p>
        )}
        <p class="lead">
          Open the pairing link the server printed (npm start), or on the server's computer run npm run pair (or open
          Devices → Add device) and scan the QR code with this device's camera, or type the code here.
        </p>
        <CodeForm />
        <p class="muted small">
          On the server's own machine? <a href="#/devices">Manage devices</a> with the admin token to show a QR code.
        </p>
      </div>
    </main>
  );
}

function CodeForm() {
  const { pairing } = useStore();
  const state = pairing.state.value;
  const [code, setCode] = useState("");
  const [bridge, setBridge] = useState("");
  const [name, setName] = useState(() => pairing.deviceName());
  const [bridgeTouched, setBridgeTouched] = useState(false);
  useEffect(() => {
    let current = true;
    void pairing.bridgeAddress().then((address) => current && !bridgeTouched && setBridge(address));
    return () => void (current = false);
  }, []);
  const busy = state.phase === "pairing";
  const submit = (event: Event) => {
    event.preventDefault();
    void pairing.pairWithCode({ code, bridge, deviceName: name });
  };
  return (
    <form onSubmit={submit} class="stack">
      <label>
        Device name
        <input
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          maxLength={100}
          autoComplete="off"
          required
        />
      </label>
      <label>
        Pairing code
        <input
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
          placeholder="7K3QF-9MXTA or a pairing link"
          autoCapitalize="characters"
          autoComplete="one-time-code"
          spellcheck={false}
          required
        />
      </label>
      <label>
        Bridge address
        <input
          value={bridge}
          onInput={(e) => (setBridgeTouched(true), setBridge(e.currentTarget.value))}
          type="url"
          inputMode="url"
          spellcheck={false}
          required
        />
      </label>
      {state.phase === "form" && state.problem && (
        <p class="notice error" role="alert">
          {state.problem}
        </p>
      )}
      <button type="submit" class="primary large" disabled={busy}>
        {busy ? "Pairing…" : "Pair"}
      </button>
    </form>
  );
}

/**
 * After pairing without the server's key (a typed code) the device trusted the key the bridge passed on: its
 * fingerprint is shown to compare with `npm run pair` and the Devices screen before the app goes on (docs/security.md).
 */
function FingerprintStep({ fingerprint }: { fingerprint: string }) {
  const { pairing, env } = useStore();
  return (
    <main class="pair-screen">
      <div class="pair-card">
        <h1>Paired</h1>
        <p class="lead">
          Check that this fingerprint is the one npm run pair (or Devices → Add device) shows for your server:
        </p>
        <p class="code fingerprint" aria-label="Server fingerprint">
          {fingerprint}
        </p>
        <p class="muted small">
          If it differs, someone between this device and your server answered instead of it: remove this device under
          Devices.
        </p>
        <button
          type="button"
          class="primary large"
          onClick={() =>
            void pairing.confirm().catch((error: unknown) => env.report("saving the pairing failed", error))
          }
        >
          Continue
        </button>
      </div>
    </main>
  );
}
