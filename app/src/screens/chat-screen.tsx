// A chat: header (title with rename, fork, model), the virtualized transcript, the session's notifications,
// and the composer. Without a session id it is a new chat: the agent picker shows, and the first send creates
// the session. Offline, the cached messages show read-only.
import { useCallback, useMemo, useRef, useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import type { PendingAttachment } from "../attachments/pending.ts";
import { sendMessage } from "../chat/send.ts";
import { emptyTranscript } from "../chat/transcript.ts";
import { cachedMessages } from "../chat/transcript-cache.ts";
import { useTranscript } from "../chat/use-transcript.ts";
import { ChatHeader } from "../components/chat-header.tsx";
import { Composer } from "../components/composer.tsx";
import { MessageList } from "../components/message-list.tsx";
import type { MessageActions } from "../components/message-item.tsx";
import { ModelPicker } from "../components/model-picker.tsx";
import { RequestOptions, selectOptionsOf } from "../components/request-options.tsx";
import { SessionNotifications } from "../components/session-notifications.tsx";
import { paired, shownState } from "../state/connection.ts";
import { navigate } from "../state/router.ts";
import { sessions, sessionsOffline, upsertSession } from "../state/sessions.ts";
import { agents, sessionReloads } from "../state/sync.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";

export function ChatScreen({ session_id }: { session_id?: string }) {
  const current = paired.value;
  const session = sessions.value.find((item) => item.id === session_id);
  const [agentId, setAgentId] = useState<string | undefined>();
  const agent = agents.value.find((item) => item.agent_id === (session?.agent_id ?? agentId)) ?? (session ? undefined : agents.value[0]);
  const [pendingModel, setPendingModel] = useState<string | undefined>();
  const [options, setOptions] = useState<Record<string, string>>({});
  const draftId = useRef(crypto.randomUUID());
  const wide = useWideScreen();
  const fallback = useMemo(() => (session_id ? emptyTranscript(cachedMessages(session_id) ?? []) : undefined), [session_id]);
  const { transcript, error } = useTranscript(current?.client, session_id, fallback, sessionReloads.value[session_id ?? ""] ?? 0);
  const offline = (error !== undefined || sessionsOffline.value) && shownState.value !== "live";
  const readOnly = offline ? "You are offline: these are the last loaded messages, read-only. Sending resumes when the server answers." : undefined;

  const onSend = async (text: string, attachments: PendingAttachment[]) => {
    if (!current) throw new Error("not paired");
    const sent = await sendMessage(current.client, { session_id, agent_id: agent?.agent_id, model: pendingModel, text, attachments, request_options: options, client_request_id: draftId.current });
    draftId.current = crypto.randomUUID();
    if (sent.session_id !== session_id) navigate({ name: "chat", session_id: sent.session_id }, { replace: true });
  };
  const onCancel = () => {
    const live = transcript.live;
    if (current && session_id && live) void current.client.cancel(session_id, live.request_id).catch(() => undefined);
  };
  const actions = useMessageActions(session_id);
  const onRetry = useRetry(session_id, transcript.messages, onSend);
  const changeModel = (model: string | undefined) => {
    if (!current || !session_id) return setPendingModel(model);
    void current.client.updateSession(session_id, { model: model ?? null }).then(upsertSession, () => undefined);
  };

  const tools = (
    <>
      {!session_id && agents.value.length > 1 && <AgentPicker value={agent?.agent_id} onChange={setAgentId} />}
      <ModelPicker client={current?.client} agent={agent} value={session ? (session.model ?? undefined) : pendingModel} onChange={changeModel} />
      <RequestOptions agent={agent} rich={true} values={options} onChange={setOptions} />
    </>
  );
  return (
    <div class={`chat-layout ${wide ? "wide" : ""}`}>
      <section class="chat" aria-label="Chat">
        <ChatHeader session={session} agent={agent} settings={selectOptionsOf(agent, false).length > 0 ? <RequestOptions agent={agent} rich={false} values={options} onChange={setOptions} /> : undefined} />
        {transcript.messages.length === 0 && !transcript.live ? <EmptyChat agentName={agent?.agent_id} /> : <MessageList transcript={transcript} agent={agent} actions={actions} onRetry={onRetry} />}
        {session_id && !wide && <SessionNotifications session_id={session_id} placement="inline" />}
        <Composer agent={agent} streaming={transcript.live !== undefined} readOnly={readOnly} onSend={onSend} onCancel={onCancel} tools={tools} />
      </section>
      {session_id && wide && <SessionNotifications session_id={session_id} placement="rail" />}
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

function AgentPicker({ value, onChange }: { value: string | undefined; onChange: (agent_id: string) => void }) {
  return (
    <label class="option-select">
      <span>Agent</span>
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {agents.value.map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {agent.agent_id}
          </option>
        ))}
      </select>
    </label>
  );
}

function useMessageActions(session_id: string | undefined): MessageActions {
  return useMemo(() => {
    const current = paired.value;
    if (!current || !session_id) return {};
    return {
      edit: async (index, content) => void (await current.client.modifyMessage(session_id, index, content)),
      remove: async (index) => void (await current.client.deleteMessages(session_id, [index])),
    };
  }, [session_id, paired.value]);
}

/** Retry after a failed reply: the failed turn (its user message and what followed) is removed, then sent again. */
function useRetry(session_id: string | undefined, messages: readonly Message[], onSend: (text: string, attachments: PendingAttachment[]) => Promise<void>) {
  return useCallback(() => {
    const current = paired.value;
    const lastUser = messages.findLastIndex((message) => message.role === "user");
    if (!current || !session_id || lastUser < 0) return;
    const text = messages[lastUser]!.content;
    const indices = messages.map((_, index) => index).filter((index) => index >= lastUser);
    void current.client
      .deleteMessages(session_id, indices)
      .then(() => onSend(text, []))
      .catch(() => undefined);
  }, [session_id, messages, onSend]);
}
