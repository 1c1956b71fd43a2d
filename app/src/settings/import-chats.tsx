// Import chats (admin; docs/app.md "Settings" → Data): this project's export file or ChatGPT's conversations.json,
// read here with progress and sent as it is to the server, which checks the whole file before storing anything (a
// bad file imports nothing) and answers what came of it: "Imported 212 chats, skipped 3 already here".
import { useState } from "preact/hooks";
import { AdminLogin } from "../components/admin-login.tsx";
import { useStore } from "../state/store.ts";
import { JobNote, useJobNote } from "./job-note.tsx";

type Stage = { step: "reading"; done: number; total: number } | { step: "importing" };

export function ImportChats() {
  const { admin } = useStore();
  const [stage, setStage] = useState<Stage | undefined>();
  const { note, run } = useJobNote("Not imported");
  if (!admin.token.value) return <AdminLogin title="Import chats" />;
  const importFile = async (file: File) => {
    const client = admin.client();
    if (!client) return;
    await run(
      async () => {
        setStage({ step: "reading", done: 0, total: file.size });
        const bytes = await readFile(file, (done) => setStage({ step: "reading", done, total: file.size }));
        setStage({ step: "importing" });
        const result = await client.importFile({ media_type: "application/json", bytes });
        return importedText(result.imported, result.skipped);
      },
      () => setStage(undefined),
    );
  };
  return (
    <section class="card stack" aria-label="Import chats">
      <h2>Import chats</h2>
      <p class="muted">
        A file exported from this app or another server, or ChatGPT's conversations.json. A chat imported before is
        skipped; a file with a problem imports nothing.
      </p>
      <label>
        Chats file
        <input
          type="file"
          accept=".json,application/json"
          disabled={stage !== undefined}
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            event.currentTarget.value = "";
            if (file) void importFile(file);
          }}
        />
      </label>
      {stage && <ImportProgress stage={stage} />}
      <JobNote note={note} />
    </section>
  );
}

function ImportProgress({ stage }: { stage: Stage }) {
  if (stage.step === "importing")
    return (
      <label>
        Importing on the server…
        <progress />
      </label>
    );
  return (
    <label>
      Reading {megabytes(stage.done)} of {megabytes(stage.total)}
      <progress max={stage.total} value={stage.done} />
    </label>
  );
}

/** The file's bytes, read a chunk at a time so the progress moves. */
async function readFile(file: File, onProgress: (done: number) => void): Promise<Uint8Array> {
  const bytes = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let done = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    if (done + chunk.value.byteLength > bytes.byteLength) throw new Error("the file changed while it was read.");
    bytes.set(chunk.value, done);
    done += chunk.value.byteLength;
    onProgress(done);
  }
  return bytes.subarray(0, done);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

export function importedText(imported: number, skipped: number): string {
  const chats = imported === 1 ? "chat" : "chats";
  return `Imported ${imported} ${chats}, skipped ${skipped} already here.`;
}
