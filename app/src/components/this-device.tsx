// "This device" on the Devices screen (no admin token needed): its name, renamed with PATCH /devices/self, and
// "Unpair this device" (DELETE /devices/self, then the local wipe).
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { ErrorNotice } from "./error-notice.tsx";
import { UnpairDialog } from "./unpair-dialog.tsx";

export function ThisDevice() {
  const { connection } = useStore();
  const current = connection.paired.value;
  const [name, setName] = useState<string | undefined>();
  const [draft, setDraft] = useState("");
  /** Whether the person has typed in the name's field: the record read afterwards must not overwrite it (K15). */
  const typed = useRef(false);
  const [note, setNote] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  /** Said quietly: the screen's own alert (the device list) already says when the server cannot be reached. */
  const [unread, setUnread] = useState<string | undefined>();
  useEffect(() => {
    if (!current) return;
    let live = true;
    current.client.getSelfDevice().then(
      (device) => live && (setName(device.name), setDraft((draft) => (typed.current ? draft : device.name))),
      (error: unknown) =>
        live && setUnread(`Its record could not be read: ${describeError(error, connection.badge.value)}`),
    );
    return () => void (live = false);
  }, [current]);
  if (!current) return null;
  const rename = async () => {
    setProblem(undefined);
    setNote(undefined);
    try {
      const device = await current.client.renameSelfDevice(draft.trim());
      setName(device.name);
      setNote("Renamed.");
    } catch (error) {
      setProblem(`Not renamed: ${describeError(error, connection.badge.value)}`);
    }
  };
  return (
    <section class="card stack this-device" aria-labelledby="this-device-title">
      <h2 id="this-device-title">This device</h2>
      <p class="muted small">{name ?? unread ?? "…"}</p>
      <form class="rename" onSubmit={(event) => (event.preventDefault(), draft.trim() && void rename())}>
        <label>
          Device name
          <input
            value={draft}
            maxLength={100}
            onInput={(event) => ((typed.current = true), setDraft(event.currentTarget.value))}
          />
        </label>
        <button type="submit" class="secondary" disabled={draft.trim() === "" || draft.trim() === name}>
          Rename this device
        </button>
      </form>
      {note && <p role="status">{note}</p>}
      <ErrorNotice problem={problem} />
      <button type="button" class="danger" onClick={() => setConfirming(true)}>
        Unpair this device
      </button>
      {confirming && <UnpairDialog onClose={() => setConfirming(false)} onProblem={setProblem} />}
    </section>
  );
}
