// The chat's header: back to the list (phones), the title with rename, fork, and the settings panel holding
// the agent's request options that are not rich_ui.
import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { SessionSummary } from "../../../client/index.ts";
import type { AgentView as Agent } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";

export function ChatHeader({ session, agent, settings }: { session: SessionSummary | undefined; agent: Agent | undefined; settings: ComponentChildren }) {
  const { connection, sessions, router } = useStore();
  const [renaming, setRenaming] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
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
  const fork = () =>
    run(async () => {
      const current = connection.paired.value;
      if (!current || !session) return;
      const copy = await current.client.forkSession(session.id);
      sessions.upsert(copy);
      router.navigate({ name: "chat", session_id: copy.id });
    });
  return (
    <header class="chat-header">
      <a class="icon-button back" href="#/" aria-label="All chats">
        <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M15 5 8 12l7 7" /></svg>
      </a>
      {renaming && session ? (
        <RenameField initial={title} onSave={rename} onCancel={() => setRenaming(false)} />
      ) : (
        <div class="chat-title">
          <h1 title={title}>{title}</h1>
          {agent && <span class="muted small">{agent.agent_id}</span>}
        </div>
      )}
      {session && !renaming && (
        <div class="header-actions">
          <button type="button" class="icon-button" aria-label="Rename chat" title="Rename" onClick={() => setRenaming(true)}>
            <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20h4L19 9l-4-4L4 16zM13 7l4 4" /></svg>
          </button>
          <button type="button" class="icon-button" aria-label="Fork chat" title="Fork: continue in a copy" onClick={fork}>
            <svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="6" cy="5" r="2" /><circle cx="18" cy="5" r="2" /><circle cx="12" cy="19" r="2" /><path d="M6 7v2a3 3 0 0 0 3 3h6a3 3 0 0 0 3-3V7M12 12v5" /></svg>
          </button>
        </div>
      )}
      {settings && (
        <details class="chat-settings">
          <summary class="icon-button" aria-label="Chat settings" title="Settings">
            <svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="3" /><path d="M12 2v3M12 19v3M2 12h3M19 12h3M5 5l2 2M17 17l2 2M5 19l2-2M17 7l2-2" /></svg>
          </summary>
          <div class="settings-panel">{settings}</div>
        </details>
      )}
      {problem && (
        <p class="notice error header-problem" role="alert">
          {problem}
        </p>
      )}
    </header>
  );
}

function RenameField({ initial, onSave, onCancel }: { initial: string; onSave: (title: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState(initial);
  return (
    <form class="rename" onSubmit={(event) => (event.preventDefault(), value.trim() && onSave(value.trim()))}>
      <input aria-label="Chat title" value={value} onInput={(e) => setValue(e.currentTarget.value)} maxLength={200} autoFocus onKeyDown={(e) => e.key === "Escape" && onCancel()} />
      <button type="submit" class="primary">
        Save
      </button>
    </form>
  );
}
