// The chat's header: back to the list (phones), the title with rename, the chat's controls (chat-actions.tsx), and the settings panel holding
// the agent's request options that are not rich_ui. The back link, the title, New chat and the settings' button are
// built with the screen; the chat's controls and the settings' panel once the chat's first rows are painted, the
// controls' row kept its height until then (docs/app.md "Long chats", Opening, LC16).
import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { useFirstRowsPainted } from "../chat/use-first-rows-painted.ts";
import type { SessionSummary } from "../../../client/index.ts";
import type { AgentView as Agent } from "../../../client/index.ts";
import { useChat } from "../state/chat-context.ts";
import { describeError } from "../state/errors.ts";
import { titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import { ChatActions } from "./chat-actions.tsx";
import { ErrorNotice } from "./error-notice.tsx";

export function ChatHeader({
  session,
  agent,
  settings,
}: {
  session: SessionSummary | undefined;
  agent: Agent | undefined;
  settings: ComponentChildren;
}) {
  const { connection, sessions } = useStore();
  const wide = useWideScreen();
  const controls = useFirstRowsPainted(useChat());
  const [renaming, setRenaming] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const [settingsOpened, setSettingsOpened] = useState(false);
  const title = session ? titleOf(session) : "New chat";
  const run = (work: () => Promise<void>) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(describeError(error, connection.badge.value)));
  };
  const rename = (next: string) =>
    run(async () => {
      const current = connection.paired.value;
      if (!current || !session) return;
      sessions.upsert(await current.client.updateSession(session.id, { title: next }));
      setRenaming(false);
    });
  return (
    <header class="chat-header">
      <a class="icon-button back" href="#/" aria-label="All chats">
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M15 5 8 12l7 7" />
        </svg>
      </a>
      {renaming && session ? (
        <RenameField initial={title} onSave={rename} onCancel={() => setRenaming(false)} />
      ) : (
        <div class="chat-title">
          <h1 title={title}>{title}</h1>
          {agent && <span class="muted small">{agent.agent_id}</span>}
        </div>
      )}
      {/* On a phone the chat list (with its New chat) is another screen: the chat offers its own. */}
      {!wide && session && (
        <a class="icon-button" href="#/new" aria-label="New chat" title="New chat">
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M12 5v14M5 12h14" />
          </svg>
        </a>
      )}
      {session &&
        !renaming &&
        (controls ? (
          <ChatActions session={session} onRename={() => setRenaming(true)} run={run} />
        ) : (
          <div class="header-actions slot" aria-hidden="true" />
        ))}
      {settings && (
        <details class="chat-settings" onToggle={(event) => event.currentTarget.open && setSettingsOpened(true)}>
          <summary class="icon-button" aria-label="Chat settings" title="Settings">
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <circle cx="12" cy="12" r="3" />
              <path d="M12 2v3M12 19v3M2 12h3M19 12h3M5 5l2 2M17 17l2 2M5 19l2-2M17 7l2-2" />
            </svg>
          </summary>
          {/* Closed until the reader opens it, so building it later moves nothing; opened before the first rows (a
              slow or offline read), it is built then rather than shown empty. */}
          <div class="settings-panel">{(controls || settingsOpened) && settings}</div>
        </details>
      )}
      <ErrorNotice problem={problem} class="header-problem" />
    </header>
  );
}

function RenameField({
  initial,
  onSave,
  onCancel,
}: {
  initial: string;
  onSave: (title: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(initial);
  return (
    <form class="rename" onSubmit={(event) => (event.preventDefault(), value.trim() && onSave(value.trim()))}>
      <input
        aria-label="Chat title"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
        maxLength={200}
        autoFocus
        onKeyDown={(e) => e.key === "Escape" && onCancel()}
      />
      <button type="submit" class="primary">
        Save
      </button>
    </form>
  );
}
