// A chat: header (title with rename, fork, model), the virtualized transcript, the session's notifications, and the
// composer. Without a session id it is a new chat: the agent picker shows, and the first send creates the session.
// When the chat cannot be loaded, the messages this device kept show read-only; a chat never opened here says it
// is not available offline.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { AgentView } from "../../../client/index.ts";
import type { PendingAttachment } from "../attachments/pending.ts";
import { sendMessage } from "../chat/send.ts";
import { useTranscript } from "../chat/use-transcript.ts";
import { ChatHeader } from "../components/chat-header.tsx";
import { Composer } from "../components/composer.tsx";
import { MessageList } from "../components/message-list.tsx";
import { useMessageActions } from "../chat/message-actions.ts";
import { ModelPicker } from "../components/model-picker.tsx";
import { RequestOptions, selectOptionsOf } from "../components/request-options.tsx";
import { SessionNotifications } from "../components/session-notifications.tsx";
import { ApprovalPanel } from "../approvals/approval-panel.tsx";
import { describeError } from "../state/errors.ts";
import { newId } from "../state/ids.ts";
import { useStore, type AppStore } from "../state/store.ts";
import { useWideScreen } from "../state/use-wide-screen.ts";

type Send = (text: string, attachments: PendingAttachment[]) => Promise<void>;

export function ChatScreen({ session_id }: { session_id?: string }) {
  const store = useStore();
  const { connection, sessions, sync } = store;
  const current = connection.paired.value;
  const session = sessions.list.value.find((item) => item.id === session_id);
  const agents = sync.agents.value;
  const [agentId, setAgentId] = useState<string | undefined>();
  const agent =
    agents.find((item) => item.agent_id === (session?.agent_id ?? agentId)) ?? (session ? undefined : agents[0]);
  const [pendingModel, setPendingModel] = useState<string | undefined>();
  const [draftOptions, setDraftOptions] = useState<Record<string, string>>({});
  const [models, setModels] = useState<readonly string[]>([]);
  // A saved chat's request options are the server's (PATCH /sessions/{id}), so every device shows the same; a new
  // chat's are kept here until its first send.
  const options = session_id ? stringValues(session?.request_options) : draftOptions;
  const [problem, setProblem] = useState<string | undefined>();
  const [stoppedHere, setStoppedHere] = useState<ReadonlySet<string>>(new Set());
  const draftId = useRef(newId("crid"));
  const wide = useWideScreen();
  const view = useTranscript(
    store.env,
    current,
    session_id,
    sync.sessionReloads.value[session_id ?? ""] ?? 0,
    (messages) => {
      // The list may have missed this chat's events the snapshot covers (a new chat's first message, which gives its
      // title): when it disagrees with the snapshot, it reads the session again.
      const listed = sessions.list.value.find((item) => item.id === session_id);
      if (!current || !session_id || listed?.message_count === messages.length) return;
      current.client.getSession(session_id).then(
        (fresh) => sessions.upsert(fresh),
        (error: unknown) => store.env.report("refreshing a chat's title failed", error),
      );
    },
  );
  const { transcript } = view;
  const unavailable = view.error !== undefined && view.cached === null;
  const readOnly = readOnlyReason(store, view.error, session_id);
  // A chat that could not be loaded: find out whether the network or the server is away, so the badge and the
  // read-only note say which.
  useEffect(() => void (view.error !== undefined && connection.diagnose(view.error)), [view.error]);

  const onSend: Send = async (text, attachments) => {
    if (!current) throw new Error("this device is not paired.");
    try {
      const outgoing = {
        session_id,
        agent_id: agent?.agent_id,
        model: pendingModel,
        text,
        attachments,
        request_options: options,
        client_request_id: draftId.current,
      };
      const sent = await sendMessage(current.client, outgoing, {
        created: (created) => sessions.upsert(created),
        report: store.env.report,
      });
      connection.noteCall();
      draftId.current = newId("crid");
      if (sent.session_id !== session_id)
        store.router.navigate({ name: "chat", session_id: sent.session_id }, { replace: true });
    } catch (error) {
      await connection.diagnose(error);
      throw error;
    }
  };
  const onCancel = () => {
    const live = transcript.live;
    if (!current || !session_id || !live) return;
    setStoppedHere((before) => new Set([...before, live.request_id]));
    current.client.cancel(session_id, live.request_id).then(
      () => connection.noteCall(),
      (error: unknown) => (
        connection.noteCall(error),
        setProblem(`Could not stop the reply: ${describeError(error, connection.badge.value)}`)
      ),
    );
  };
  const actions = useMessageActions(store, session_id, models);
  const onRetry = useRetry(store, session_id, setProblem);
  const streaming = transcript.live !== undefined;
  // Esc stops the reply being written (unless a dialog or a field took Esc first). Bound once; reads the latest.
  const stopOnEsc = useRef<(() => void) | undefined>(undefined);
  stopOnEsc.current = streaming ? onCancel : undefined;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && !event.defaultPrevented && stopOnEsc.current?.();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const onEditLast = () => {
    const lastUser = transcript.messages.findLastIndex((message) => message.role === "user");
    if (lastUser >= 0 && actions.editing) actions.editing.value = lastUser;
  };
  // The list's summary lacks the saved request options: read the session once when it opens.
  useEffect(() => {
    if (!current || !session_id) return;
    current.client.getSession(session_id).then(
      (fresh) => sessions.upsert(fresh),
      (error: unknown) => store.env.report("reading a chat's settings failed", error),
    );
  }, [session_id, current]);
  const setOptions = (next: Record<string, string>) => {
    if (!current || !session_id) return setDraftOptions(next);
    current.client.updateSession(session_id, { request_options: Object.keys(next).length > 0 ? next : null }).then(
      (updated) => sessions.upsert(updated),
      (error: unknown) => setProblem(`The setting was not saved: ${describeError(error, connection.badge.value)}`),
    );
  };
  const changeModel = (model: string | undefined) => {
    if (!current || !session_id) return setPendingModel(model);
    current.client.updateSession(session_id, { model: model ?? null }).then(
      (updated) => sessions.upsert(updated),
      (error: unknown) => setProblem(`The model was not changed: ${describeError(error, connection.badge.value)}`),
    );
  };

  const tools = (
    <>
      {!session_id && agents.length > 1 && (
        <AgentPicker agents={agents} value={agent?.agent_id} onChange={setAgentId} />
      )}
      <ModelPicker
        client={current?.client}
        agent={agent}
        value={session ? (session.model ?? undefined) : pendingModel}
        onChange={changeModel}
        onModels={setModels}
      />
      <RequestOptions agent={agent} rich={true} values={options} onChange={setOptions} />
    </>
  );
  const settings =
    selectOptionsOf(agent, false).length > 0 ? (
      <RequestOptions agent={agent} rich={false} values={options} onChange={setOptions} />
    ) : undefined;
  return (
    <div class={`chat-layout ${wide ? "wide" : ""}`}>
      <section class="chat" aria-label="Chat">
        <ChatHeader session={session} agent={agent} settings={settings} />
        {problem && (
          <p class="notice error chat-problem" role="alert">
            {problem}
          </p>
        )}
        {unavailable ? (
          <NotAvailableOffline />
        ) : transcript.messages.length === 0 && !transcript.live && !view.loading ? (
          <EmptyChat agentName={agent?.agent_id} />
        ) : (
          <MessageList
            transcript={transcript}
            agent={agent}
            actions={actions}
            onRetry={onRetry}
            stoppedHere={stoppedHere}
          />
        )}
        {session_id && <ApprovalPanel session_id={session_id} />}
        {session_id && !wide && <SessionNotifications session_id={session_id} placement="inline" />}
        <Composer
          agent={agent}
          streaming={streaming}
          readOnly={readOnly}
          onSend={onSend}
          onCancel={onCancel}
          tools={tools}
          onEditLast={onEditLast}
        />
      </section>
      {session_id && wide && <SessionNotifications session_id={session_id} placement="rail" />}
    </div>
  );
}

/** The saved options an agent's selects can show (strings only). */
function stringValues(saved: unknown): Record<string, string> {
  if (typeof saved !== "object" || saved === null) return {};
  return Object.fromEntries(
    Object.entries(saved).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** Why sending is off: the chat was deleted, or it could not be loaded and what shows is this device's copy. */
function readOnlyReason(store: AppStore, error: unknown, session_id: string | undefined): string | undefined {
  if (session_id && store.sync.deleted.value.has(session_id)) return "This chat was deleted.";
  if (error === undefined) return undefined;
  const badge = store.connection.badge.value;
  if (badge === "live" || badge === "polling") return `This chat could not be loaded: ${describeError(error, badge)}`;
  if (badge === "server_offline")
    return "Your server is offline: these are the last loaded messages, read-only. Sending resumes when it is back.";
  return "You are offline: these are the last loaded messages, read-only. Sending resumes when the server answers.";
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
        {agents.map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {agent.agent_id}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Retry after a failed reply: the server's regenerate answers the last turn again (its attachments too), and keeps
 * no empty version when the failed request gave no text.
 */
function useRetry(store: AppStore, session_id: string | undefined, setProblem: (problem: string | undefined) => void) {
  const current = store.connection.paired.value;
  return useCallback(() => {
    if (!current || !session_id) return;
    setProblem(undefined);
    current.client
      .regenerate(session_id)
      .then(() => store.connection.noteCall())
      .catch(async (error: unknown) => {
        await store.connection.diagnose(error);
        setProblem(`Retry failed: ${describeError(error, store.connection.badge.value)}`);
      });
  }, [session_id, current]);
}
