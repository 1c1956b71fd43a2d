// The chat's own controls in its header: Rename, Fork, Share chat, Share link, Pin chat, Archive chat, Export chat (Markdown or
// JSON), Delete chat (after "Delete chat?"). A new control is one more button in this row. In a chat shared with this
// device's person only what a share holder may do shows, and Fork is "Copy to my chats" (app/src/people/).
import { useState } from "preact/hooks";
import type { ChatClient, SessionSummary } from "../../../client/index.ts";
import { titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { myAccess } from "../people/chat-access.ts";
import { ShareButton } from "../people/share-button.tsx";
import { ShareLinkButton } from "../people/share-link-button.tsx";
import { BIN_PATH, IconButton, PEN_PATH, PIN_PATH } from "./icon-button.tsx";

/** The chat's on/off flags, a toggle button each (pressed while set), saved on the session through PATCH. */
const FLAGS = [
  {
    flag: "pinned",
    label: "Pin chat",
    titleSet: "Pinned: tap to unpin",
    titleUnset: "Pin to the top of the list",
    path: PIN_PATH,
  },
  {
    flag: "archived",
    label: "Archive chat",
    titleSet: "Archived: tap to restore",
    titleUnset: "Archive",
    path: "M4 5h16v4H4zM6 9v10h12V9M10 13h4",
  },
] as const;

interface Props {
  session: SessionSummary;
  onRename(): void;
  /** Runs a server call; its failure is said under the header. */
  run(work: () => Promise<void>): void;
}

export function ChatActions({ session, onRename, run }: Props) {
  const { connection, sessions, router, people } = useStore();
  const [confirming, setConfirming] = useState(false);
  const owner = myAccess(session, people.me.value?.id) === "owner";
  const client = () => {
    const current = connection.paired.value;
    if (!current) throw new Error("this device is not paired.");
    return current.client;
  };
  const fork = () =>
    run(async () => {
      const copy = await client().forkSession(session.id);
      sessions.upsert(copy);
      router.navigate({ name: "chat", session_id: copy.id });
    });
  const update = (change: { pinned?: boolean; archived?: boolean }) =>
    run(async () => sessions.upsert(await client().updateSession(session.id, change)));
  const remove = () =>
    run(async () => {
      setConfirming(false);
      await client().deleteSession(session.id);
      sessions.remove(session.id);
      router.navigate({ name: "sessions" }, { replace: true });
    });
  return (
    <div class="header-actions">
      {owner && (
        <IconButton label="Rename chat" title="Rename" onClick={onRename}>
          <path d={PEN_PATH} />
        </IconButton>
      )}
      <IconButton
        label={owner ? "Fork chat" : "Copy to my chats"}
        title={owner ? "Fork: continue in a copy" : "Copy to my chats: continue it as your own"}
        onClick={fork}
      >
        <circle cx="6" cy="5" r="2" />
        <circle cx="18" cy="5" r="2" />
        <circle cx="12" cy="19" r="2" />
        <path d="M6 7v2a3 3 0 0 0 3 3h6a3 3 0 0 0 3-3V7M12 12v5" />
      </IconButton>
      {owner && people.me.value && <ShareButton session={session} />}
      {owner && <ShareLinkButton session={session} />}
      {FLAGS.map(({ flag, label, titleSet, titleUnset, path }) => {
        const set = session[flag] === true;
        return (
          <IconButton
            key={flag}
            label={label}
            pressed={set}
            title={set ? titleSet : titleUnset}
            onClick={() => update({ [flag]: !set })}
          >
            <path d={path} />
          </IconButton>
        );
      })}
      <ExportChat session={session} run={run} client={client} />
      {owner && (
        <IconButton label="Delete chat" title="Delete" onClick={() => setConfirming(true)}>
          <path d={BIN_PATH} />
        </IconButton>
      )}
      {confirming && (
        <ConfirmDialog
          title="Delete chat?"
          body={`"${titleOf(session)}" and its messages are deleted from the server and from every device. This cannot be undone.`}
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={remove}
        />
      )}
    </div>
  );
}

/** Export chat: a menu of the two formats; the file is made on this device from the chat's messages. */
function ExportChat({ session, run, client }: Pick<Props, "session" | "run"> & { client: () => ChatClient }) {
  const [exporting, setExporting] = useState(false);
  const exportAs = (format: "markdown" | "json") =>
    run(async () => {
      setExporting(false);
      const { exportChat } = await import("../chat/export-chat.ts");
      await exportChat(client(), session.id, format, titleOf(session));
    });
  return (
    <span class="export-chat">
      <IconButton label="Export chat" expanded={exporting} title="Export" onClick={() => setExporting(!exporting)}>
        <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
      </IconButton>
      {exporting && (
        <span class="export-menu" role="group" aria-label="Export format">
          <button type="button" onClick={() => exportAs("markdown")}>
            Markdown
          </button>
          <button type="button" onClick={() => exportAs("json")}>
            JSON
          </button>
        </span>
      )}
    </span>
  );
}
