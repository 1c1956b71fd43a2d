// One open chat's behaviour, made by one function from the store (the pattern of Preact signals' "managing global
// state": state and actions together, views only render and call): its transcript, the agent, model and request
// options of the next send, the draft, the approvals waiting, and the actions on it: send, stop, retry, regenerate,
// versions, edits, deletes, and where the list is scrolled. The chat screen, the composer and the message toolbar are views over it;
// test/app-state/chat.test.ts drives it without a page (docs/app.md "The chat controller").
//
//   no session ──send──▶ session created ──▶ (navigates to it: a new controller follows it)
//   idle ──send──▶ sending ──▶ streaming (transcript.live) ──final/cancel/error──▶ idle
//   streaming ──cancel──▶ (stoppedHere holds its request) ──request_cancelled──▶ idle
import { batch, computed, effect, signal, untracked, type ReadonlySignal, type Signal } from "@preact/signals";
import {
  NetworkError,
  ServerOfflineError,
  type AgentView,
  type ChatClient,
  type SessionSummary,
} from "../../../client/index.ts";
import type { PendingAttachment } from "../attachments/pending.ts";
import { sendMessage } from "../chat/send.ts";
import { uploadDocument } from "../documents/pending-document.ts";
import { createChatApprovals, type ChatApprovals } from "./chat-approvals.ts";
import { createDraft, type Draft } from "./chat-draft.ts";
import { createTranscriptFeed, type TranscriptView } from "./chat-feed.ts";
import { afterPaint, defaultFrames, type Frames } from "./frames.ts";
import { messageActions, type MessageActions } from "./chat-message-actions.ts";
import { describeError } from "./errors.ts";
import { newId } from "./ids.ts";
import type { AppStore } from "./store.ts";
import { myAccess, sharedReadOnlyReason } from "../people/chat-access.ts";
import { serverAnswers, serverUnreachable } from "./connection-status.ts";

/** How close to the bottom (px) still counts as "at the bottom": the list follows a streaming reply from there. */
export const STICK_THRESHOLD = 80;

export interface Chat {
  readonly session_id: string | undefined;
  readonly view: ReadonlySignal<TranscriptView>;
  readonly session: ReadonlySignal<SessionSummary | undefined>;
  /** The agent the chat talks to (a new chat: the one picked, else the first). */
  readonly agent: ReadonlySignal<AgentView | undefined>;
  /** The model shown in the picker: the session's, or the one picked before a new chat's first send. */
  readonly model: ReadonlySignal<string | undefined>;
  readonly options: ReadonlySignal<Record<string, string>>;
  /** The provider's discovered models, for Regenerate's "another model". */
  readonly models: ReadonlySignal<readonly string[]>;
  readonly streaming: ReadonlySignal<boolean>;
  /** Why sending is off (deleted, or this device's copy shows), or undefined. */
  readonly readOnly: ReadonlySignal<string | undefined>;
  /** Offline with this device's copy showing: what is written now waits in the outbox (docs/app.md "Outbox"). */
  readonly offlineNote: ReadonlySignal<string | undefined>;
  /** The chat's key in the outbox: its session id, or the client_session_id a new chat is created with. */
  readonly waitingKey: string;
  /** The chat could not be loaded and this device never kept it. */
  readonly unavailable: ReadonlySignal<boolean>;
  /** The chat-level failure to show (stop, retry, a setting not saved), or undefined. */
  readonly problem: ReadonlySignal<string | undefined>;
  /** Requests this device stopped (their note says "You stopped this reply"). */
  readonly stoppedHere: ReadonlySignal<ReadonlySet<string>>;
  /** The index of the user message open in its edit box, if any. */
  readonly editing: ReadonlySignal<number | undefined>;
  /** True when the message controls can change the chat (a saved chat on a paired device). */
  readonly editable: ReadonlySignal<boolean>;
  /** Whether the list follows the bottom (the reader is there) or stays where they scrolled to. */
  readonly atBottom: ReadonlySignal<boolean>;
  readonly draft: Draft;
  /** The approvals waiting in this chat, and those answered or put off here. */
  readonly approvals: ChatApprovals;
  /** Loads the chat and follows it; returns the function that stops (the screen calls it when it closes). */
  start(): () => void;
  send(text: string, attachments: PendingAttachment[]): Promise<void>;
  /** Stops the reply being written (nothing when none is). */
  cancel(): void;
  /** After a failed reply: answers the last turn again. */
  retry(): void;
  regenerate(model?: string): Promise<void>;
  switchVersion(index: number, version: number): Promise<void>;
  /** Edits a user message and resends it (a new version of its turn). */
  edit(index: number, content: string): Promise<void>;
  remove(index: number): Promise<void>;
  copy(text: string): Promise<boolean>;
  startEditing(index: number): void;
  /** Opens the last user message's edit box; false when there is none to edit. */
  editLast(): boolean;
  stopEditing(): void;
  chooseAgent(agent_id: string): void;
  chooseModel(model: string | undefined): void;
  setOptions(next: Record<string, string>): void;
  setModels(models: readonly string[]): void;
  /** The list's scroll position, as the distance (px) from the bottom. */
  noteScroll(fromBottom: number): void;
  /** A search result opened an older message: stop following the bottom. */
  leaveBottom(): void;
  /** Reads the messages before the loaded ones (down to the chat's index `until`), see chat-feed.ts. */
  loadOlder(until?: number): Promise<void>;
}

/**
 * `client_session_id`: for a new chat, the one its address carries (a chat started offline, #/new/<id>), else a fresh
 * one; a saved chat's key is its session id.
 */
export function createChat(
  store: AppStore,
  session_id: string | undefined,
  frames: Frames = defaultFrames(),
  client_session_id: string = newId("cs"),
): Chat {
  const feed = createTranscriptFeed(store.env, frames, session_id !== undefined);
  const selection = createSelection(store, session_id);
  const problem = signal<string | undefined>(undefined);
  const view = feed.view;
  const streaming = computed(() => view.value.transcript.live !== undefined);
  const readOnly = computed(
    () =>
      readOnlyReason(store, view.value, session_id) ??
      sharedReadOnlyReason(selection.session.value, store.people.me.value?.id),
  );
  const waitingKey = session_id ?? client_session_id;
  const actions = createActions(store, { session_id, waitingKey }, problem, view, selection);
  const draft = createDraft({
    agent: selection.agent,
    blocked: computed(() => streaming.value || readOnly.value !== undefined),
    badge: store.connection.badge,
    send: actions.send,
    uploadDocument: (file) => {
      const client = store.connection.paired.value?.client;
      return client && uploadDocument(client, file);
    },
  });
  const atBottom = signal(true);
  const approvals = createChatApprovals(store.connection, session_id);
  return {
    session_id,
    view,
    ...selection,
    streaming,
    readOnly,
    offlineNote: computed(() => (readOnly.value ? undefined : offlineReason(store, view.value))),
    waitingKey,
    unavailable: computed(() => view.value.error !== undefined && view.value.cached === null),
    problem,
    // Editing and deleting messages is the owner's (a share holder regenerates and switches versions with `write`).
    editable: computed(
      () =>
        session_id !== undefined &&
        store.connection.paired.value !== undefined &&
        myAccess(selection.session.value, store.people.me.value?.id) === "owner",
    ),
    atBottom,
    draft,
    approvals,
    loadOlder: feed.loadOlder,
    ...actions,
    start() {
      const stops = [follow(store, session_id, feed, frames), approvals.follow(), draft.dispose];
      return () => stops.forEach((stop) => stop());
    },
    copy: (text) => store.env.copyText(text),
    noteScroll: (fromBottom) => void (atBottom.value = fromBottom < STICK_THRESHOLD),
    leaveBottom: () => void (atBottom.value = false),
  };
}

type Selection = Pick<Chat, "session" | "agent" | "model" | "options" | "models"> &
  Pick<Chat, "chooseAgent" | "chooseModel" | "setOptions" | "setModels"> & {
    /** Where a failed setting is said (set by createActions). */
    onProblem?: (problem: string) => void;
  };

/** The agent, model and request options of the chat. A saved chat's are the server's (PATCH /sessions/{id}), so
 * every device shows the same; a new chat's are kept here until its first send. */
function createSelection(store: AppStore, session_id: string | undefined): Selection {
  const { connection, sessions, sync } = store;
  const picked = signal<string | undefined>(undefined);
  const pendingModel = signal<string | undefined>(undefined);
  const draftOptions = signal<Record<string, string>>({});
  const models = signal<readonly string[]>([]);
  const session = computed(() => sessions.list.value.find((item) => item.id === session_id));
  const agent = computed(() => {
    const agents = sync.agents.value;
    const wanted = session.value?.agent_id ?? picked.value;
    return agents.find((item) => item.agent_id === wanted) ?? (session.value ? undefined : agents[0]);
  });
  const selection: Selection = {
    session,
    agent,
    model: computed(() => (session.value ? (session.value.model ?? undefined) : pendingModel.value)),
    options: computed(() => (session_id ? stringValues(session.value?.request_options) : draftOptions.value)),
    models,
    chooseAgent: (agent_id) => void (picked.value = agent_id),
    setModels: (next) => void (models.value = next),
    chooseModel(model) {
      const client = connection.paired.value?.client;
      if (!client || !session_id) return void (pendingModel.value = model);
      client.updateSession(session_id, { model: model ?? null }).then(
        (updated) => sessions.upsert(updated),
        (error: unknown) =>
          selection.onProblem?.(`The model was not changed: ${describeError(error, connection.badge.value)}`),
      );
    },
    setOptions(next) {
      const client = connection.paired.value?.client;
      if (!client || !session_id) return void (draftOptions.value = next);
      const request_options = Object.keys(next).length > 0 ? next : null;
      client.updateSession(session_id, { request_options }).then(
        (updated) => sessions.upsert(updated),
        (error: unknown) =>
          selection.onProblem?.(`The setting was not saved: ${describeError(error, connection.badge.value)}`),
      );
    },
  };
  return selection;
}

type Actions = Pick<Chat, "send" | "cancel" | "retry" | "stoppedHere"> & MessageActions;

function createActions(
  store: AppStore,
  { session_id, waitingKey }: { session_id: string | undefined; waitingKey: string },
  problem: Signal<string | undefined>,
  view: ReadonlySignal<TranscriptView>,
  selection: Selection,
): Actions {
  const { connection } = store;
  const stoppedHere = signal<ReadonlySet<string>>(new Set());
  selection.onProblem = (text) => void (problem.value = text);
  return {
    send: sender(store, { session_id, waitingKey }, selection),
    stoppedHere,
    cancel() {
      const live = view.value.transcript.live;
      const client = connection.paired.value?.client;
      if (!client || !session_id || !live) return;
      stoppedHere.value = new Set([...stoppedHere.value, live.request_id]);
      client.cancel(session_id, live.request_id).then(
        () => connection.noteCall(),
        (error: unknown) => {
          connection.noteCall(error);
          problem.value = `Could not stop the reply: ${describeError(error, connection.badge.value)}`;
        },
      );
    },
    retry() {
      const client = connection.paired.value?.client;
      if (!client || !session_id) return;
      problem.value = undefined;
      // The server's regenerate answers the last turn again (its attachments too), and keeps no empty version when
      // the failed request gave no text.
      client.regenerate(session_id).then(
        () => connection.noteCall(),
        async (error: unknown) => {
          await connection.diagnose(error);
          problem.value = `Retry failed: ${describeError(error, connection.badge.value)}`;
        },
      );
    },
    ...messageActions(store, session_id, view),
  };
}

/**
 * Sends from the composer; the first send of a new chat creates it and opens it in the address bar. With the server
 * unreachable (before, or found out by this send) a message without attachments waits in the outbox instead, with
 * the ids it would have been sent with (docs/app.md "Outbox").
 */
function sender(
  store: AppStore,
  { session_id, waitingKey }: { session_id: string | undefined; waitingKey: string },
  selection: Selection,
): Chat["send"] {
  const { connection, sessions } = store;
  // One id per message, kept across retries of a failed send: the server starts nothing new for a repeat.
  let draftId = newId("crid");
  const client_session_id = session_id ? undefined : waitingKey;
  const unreachable = () => serverUnreachable(connection.badge.value);
  // A message written while earlier ones of this chat are still in the outbox goes behind them, also with the server
  // answering: sent now, it would pass them (docs/app.md OB16).
  const queuedBefore = () =>
    store.outbox.items.value.some((item) => item.chat === waitingKey || (session_id && item.session_id === session_id));
  return async (text, attachments) => {
    const client = connection.paired.value?.client;
    if (!client) throw new Error("this device is not paired.");
    const outgoing = {
      session_id,
      client_session_id,
      agent_id: selection.agent.value?.agent_id,
      model: selection.model.value,
      text,
      attachments,
      request_options: selection.options.value,
      client_request_id: draftId,
    };
    const wait = async () => {
      await store.outbox.add({ ...outgoing, id: draftId });
      draftId = newId("crid");
      if (client_session_id) keepNewChatAddress(store, client_session_id);
    };
    if (attachments.length === 0 && (unreachable() || queuedBefore())) return wait();
    try {
      const sent = await sendMessage(client, outgoing, {
        created: (created) => sessions.upsert(created),
        report: store.env.report,
      });
      connection.noteCall();
      draftId = newId("crid");
      if (sent.session_id !== session_id)
        store.router.navigate({ name: "chat", session_id: sent.session_id }, { replace: true });
    } catch (error) {
      await connection.diagnose(error);
      const lost = error instanceof NetworkError || error instanceof ServerOfflineError;
      const badge = connection.badge.value;
      if (lost && attachments.length === 0 && !serverAnswers(badge)) return wait();
      throw error;
    }
  };
}

/**
 * A new chat whose first message waits in the outbox takes its client_session_id into the address (#/new/<id>), so a
 * reload, or the next open, shows that chat with its waiting messages rather than an empty new one. Only while the
 * page still shows that new chat: a reader who went elsewhere meanwhile stays there.
 */
function keepNewChatAddress({ router }: AppStore, client_session_id: string): void {
  const now = router.route.value;
  if (now.name === "new_chat" && now.client_session_id === undefined)
    router.navigate({ name: "new_chat", client_session_id }, { replace: true });
}

/** Follows the chat while paired, again when a ui_effect asks it to reload; reads the saved session once. */
function follow(
  store: AppStore,
  session_id: string | undefined,
  feed: ReturnType<typeof createTranscriptFeed>,
  frames: Frames,
) {
  const { connection, sessions, sync } = store;
  if (!session_id) return () => undefined;
  // A chat that could not be loaded: find out whether the network or the server is away, so the badge and the
  // read-only note say which.
  const stopDiagnosing = effect(() => {
    const error = feed.view.value.error;
    if (error !== undefined) untracked(() => void connection.diagnose(error));
  });
  const stopFollowing = effect(() => {
    const client = connection.paired.value?.client;
    void sync.sessionReloads.value[session_id];
    if (!client) return;
    return untracked(() => feed.follow(client, session_id));
  });
  // Each time the chat's messages have answered (its open, a reload), its head is read once that frame is painted
  // (sent with the messages, its request and answer delayed the chat's first paint): the list's summary lacks the
  // saved request options, and the list may have missed events the snapshot covers (a new chat's first message, which
  // gives its title; events at or before the snapshot's cursor reach no listener afterwards).
  const answered = computed(() => !feed.view.value.loading);
  const stopReading = effect(() => {
    const client = connection.paired.value?.client;
    if (!client || !answered.value) return;
    return untracked(() =>
      afterPaint(frames, () =>
        readHead(client, session_id).then(
          (fresh) => sessions.upsert(fresh),
          (error: unknown) => store.env.report("reading a chat's head failed", error),
        ),
      ),
    );
  });
  return () => batch(() => (stopDiagnosing(), stopFollowing(), stopReading()));
}

/**
 * The session with only its first messages (those that give its derived title): what the list's summary needs,
 * without reading a long chat whole. `messages_total` gives the summary its count (sessions.upsert).
 */
const HEAD_MESSAGES = 20;
const readHead = (client: ChatClient, session_id: string) =>
  client.getSessionPage(session_id, { limit: HEAD_MESSAGES, before: HEAD_MESSAGES });

/** The saved options an agent's selects can show (strings only). */
function stringValues(saved: unknown): Record<string, string> {
  if (typeof saved !== "object" || saved === null) return {};
  return Object.fromEntries(
    Object.entries(saved).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * Why sending is off: the chat was deleted, it could not be loaded while the server answers, or it is not on this
 * device at all while offline. Offline with this device's copy, writing goes on into the outbox (offlineReason).
 */
function readOnlyReason(store: AppStore, view: TranscriptView, session_id: string | undefined): string | undefined {
  if (session_id && store.sync.deleted.value.has(session_id)) return "This chat was deleted.";
  const { error } = view;
  if (error === undefined) return undefined;
  const badge = store.connection.badge.value;
  if (serverAnswers(badge)) return `This chat could not be loaded: ${describeError(error, badge)}`;
  if (view.cached !== null) return undefined;
  if (badge === "server_offline") return "Your server is offline and this chat is not on this device.";
  return "You are offline and this chat is not on this device.";
}

/** Offline with this device's copy showing: what it is, and that what is written waits to be sent. */
function offlineReason(store: AppStore, view: TranscriptView): string | undefined {
  if (view.error === undefined || view.cached === null) return undefined;
  const badge = store.connection.badge.value;
  if (badge === "server_offline")
    return "Your server is offline: these are the last loaded messages. What you write waits on this device and is sent when it is back.";
  if (serverAnswers(badge)) return undefined;
  return "You are offline: these are the last loaded messages. What you write waits on this device and is sent when the server answers.";
}
