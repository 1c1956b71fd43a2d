// Data: export my chats (everyone), every chat this person may read (archived ones too), as one JSON file in the
// server's export format (each chat's GET /sessions/{id}/export record, so the file imports as it is), with progress;
// and import chats (the admin's, import-chats.tsx).
import { useState } from "preact/hooks";
import { useStore } from "../state/store.ts";
import { ImportChats } from "./import-chats.tsx";
import { JobNote, useJobNote } from "./job-note.tsx";

export function DataSection() {
  return (
    <>
      <ExportChats />
      <ImportChats />
    </>
  );
}

function ExportChats() {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>();
  const { note, run } = useJobNote("Not exported");
  if (!client) return <p class="muted">Pair this device first.</p>;
  const exportAll = () =>
    run(
      async () => {
        const sessions = await client.listSessions({ archived: "include" });
        const records: unknown[] = [];
        setProgress({ done: 0, total: sessions.length });
        const decoder = new TextDecoder();
        for (const [index, session] of sessions.entries()) {
          const file = await client.exportSession(session.id, "json");
          records.push(...(JSON.parse(decoder.decode(file.bytes)) as unknown[]));
          setProgress({ done: index + 1, total: sessions.length });
        }
        const { download } = await import("../chat/export-chat.ts");
        download(new Blob([JSON.stringify(records)], { type: "application/json" }), "my-chats.json");
        return `Exported ${records.length} chats.`;
      },
      () => setProgress(undefined),
    );
  return (
    <section class="card stack" aria-label="Export my chats">
      <h2>Export my chats</h2>
      <p class="muted">Every chat of yours, archived ones too, as one JSON file that imports as it is.</p>
      {progress && (
        <label>
          Exporting {progress.done} of {progress.total}
          <progress max={progress.total} value={progress.done} />
        </label>
      )}
      <button type="button" class="primary" disabled={progress !== undefined} onClick={() => void exportAll()}>
        Export my chats
      </button>
      <JobNote note={note} />
    </section>
  );
}
