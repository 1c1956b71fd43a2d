// A chat: header (title with rename, fork, model), the virtualized transcript, the session's notifications, and the
// composer. Without a session id it is a new chat: the agent picker shows, and the first send creates the session.
// When the chat cannot be loaded, the messages this device kept show read-only; a chat never opened here says it
// is not available offline. What the chat does is its controller's (state/chat.ts); this file only lays it out.
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { AgentView } from "../../../client/index.ts";
import { ApprovalPanel } from "../approvals/approval-panel.tsx";
import { useStartedAtRender } from "../chat/use-started-at-render.ts";
import { ChatHeader } from "../components/chat-header.tsx";
import { Composer } from "../components/composer.tsx";
import { MessageList } from "../components/message-list.tsx";
import { ModelPicker } from "../components/model-picker.tsx";
import { RequestOptions, selectOptionsOf } from "../components/request-options.tsx";
import { SessionNotifications } from "../components/session-notifications.tsx";
import { createChat, type Chat } from "../state/chat.ts";
import { WaitingMessages } from "../offline/waiting-messages.tsx";
import { ChatContext } from "../state/chat-context.ts";
import { useStore, type AppStore } from "../state/store.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { OptionList } from "../components/option-list.tsx";

export function ChatScreen({ session_id, client_session_id }: { session_id?: string; client_session_id?: string }) {
  const store = useStore();
  const chat = useNewChatKept(store, session_id, client_session_id);
  useStartedAtRender(chat);
  useStopOnEscape(chat);
  const wide = useWideScreen();
  const agent = chat.agent.value;
  return (
    <ChatContext.Provider value={chat}>
      {/* The page's one main landmark: the chat (the list beside it on a desktop is the "Chats" navigation). */}
      <main class={`chat-layout ${wide ? "wide" : ""}`}>
        <section class="chat" aria-label="Chat">
          <ChatHeader
            session={chat.session.value}
            agent={agent}
            settings={selectOptionsOf(agent, false).length > 0 ? <ChatSettings chat={chat} /> : undefined}
          />
          <ErrorNotice problem={chat.problem.value} class="chat-problem" />
          <Transcript chat={chat} />
          <WaitingMessages chat={chat} />
          {session_id && <ApprovalPanel />}
          {session_id && !wide && <SessionNotifications session_id={session_id} placement="inline" />}
          <Composer tools={<ChatTools chat={chat} />} />
        </section>
        {session_id && wide && <SessionNotifications session_id={session_id} placement="rail" />}
      </main>
    </ChatContext.Provider>
  );
}

/**
 * The chat's controller. A new chat whose first message went to the outbox moves its address to #/new/<its
 * client_session_id>: that is the same chat going on (its draft, its picks), not a new one to make.
 */
function useNewChatKept(store: AppStore, session_id: string | undefined, client_session_id: string | undefined): Chat {
  const previous = useRef<Chat | undefined>(undefined);
  const chat = useMemo(() => {
    const kept = previous.current;
    if (kept && session_id === undefined && kept.session_id === undefined && kept.waitingKey === client_session_id)
      return kept;
    return createChat(store, session_id, undefined, client_session_id);
  }, [store, session_id, client_session_id]);
  previous.current = chat;
  return chat;
}

/** Esc stops the reply being written (unless a dialog or a field took Esc first). */
function useStopOnEscape(chat: Chat) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && !event.defaultPrevented && chat.cancel();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [chat]);
}

function Transcript({ chat }: { chat: Chat }) {
  const { transcript, loading } = chat.view.value;
  if (chat.unavailable.value) return <NotAvailableOffline />;
  if (transcript.messages.length === 0 && !transcript.live && !loading)
    return <EmptyChat agentName={chat.agent.value?.agent_id} />;
  return <MessageList transcript={transcript} agent={chat.agent.value} />;
}

/** The pickers beside the composer: the agent (a new chat with a choice), the model, the rich request options. */
function ChatTools({ chat }: { chat: Chat }) {
  const store = useStore();
  const agents = store.sync.agents.value;
  const agent = chat.agent.value;
  return (
    <>
      {!chat.session_id && agents.length > 1 && (
        <AgentPicker agents={agents} value={agent?.agent_id} onChange={chat.chooseAgent} />
      )}
      <ModelPicker
        client={store.connection.paired.value?.client}
        agent={agent}
        value={chat.model.value}
        onChange={chat.chooseModel}
        onModels={chat.setModels}
      />
      <RequestOptions agent={agent} rich={true} values={chat.options.value} onChange={chat.setOptions} />
    </>
  );
}

/** The header's settings panel: the agent's request options that are not rich_ui. */
function ChatSettings({ chat }: { chat: Chat }) {
  return (
    <RequestOptions agent={chat.agent.value} rich={false} values={chat.options.value} onChange={chat.setOptions} />
  );
}

function NotAvailableOffline() {
  return (
    <div class="empty-chat" role="status">
      <h2>This chat is not available offline</h2>
      <p class="muted">
        This chat was never opened on this device, so nothing of it is kept here. It opens when the server answers
        again.
      </p>
    </div>
  );
}

function EmptyChat({ agentName }: { agentName: string | undefined }) {
  return (
    <div class="empty-chat">
      <h2>How can I help?</h2>
      <p class="muted">{agentName ? `You are talking to the ${agentName} agent.` : "Type a message to start."}</p>
    </div>
  );
}

function AgentPicker({
  agents,
  value,
  onChange,
}: {
  agents: AgentView[];
  value: string | undefined;
  onChange: (agent_id: string) => void;
}) {
  return (
    <label class="option-select">
      <span>Agent</span>
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <OptionList values={agents.map((agent) => agent.agent_id)} />
      </select>
    </label>
  );
}
