// The transcript, virtualized: thousands of messages scroll smoothly because only the visible rows exist.
// It follows the bottom while the user is there (a streaming reply stays in view) and leaves them alone when
// they scrolled up to read; where they are is the chat controller's (`atBottom`). A long chat shows its end first:
// near the top of what is loaded, the next older page is read (chat.loadOlder) and put above without moving what the
// reader sees (the virtualizer's anchorTo "end" keeps the row at the top in its place).
import { Component } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AgentView as Agent, Message } from "../../../client/index.ts";
import type { Transcript } from "../chat/transcript.ts";
import type { Chat } from "../state/chat.ts";
import { useChat } from "../state/chat-context.ts";
import { useVirtualizer } from "./use-virtualizer.ts";
import { useEndKeptInView } from "./use-end-kept-in-view.ts";
import { afterPaint, defaultFrames } from "../state/frames.ts";
import { LiveReplyView } from "./live-reply.tsx";
import { MessageItem } from "./message-item.tsx";
import { RequestNoteView } from "./request-note.tsx";
import { messageRowKey, useMessageFocus } from "../search/use-message-focus.ts";
import { useStore } from "../state/store.ts";
import { Completing, NewestRank, rowInFull, whenSettled } from "../render/scroll-pacing.ts";
import { MessageSketch, plainShape, sketchable } from "./message-sketch.tsx";
import { RowEstimates } from "./row-estimates.ts";

/** A row's height before it is measured, when no row of its shape was measured yet (row-estimates.ts). */
const ESTIMATED_ROW = 96;
/** How many rows from the top of the loaded ones the reader may come before the older page is read. */
const LOAD_OLDER_WITHIN = 30;
/** Rows kept mounted beyond each edge of the screen, once the chat's first rows are painted (none before: LC8). */
const OVERSCAN = 6;

/**
 * A row; `sketch`, when it has one, is what it shows when a fast scroll mounts it past the frame's row budget;
 * `shape`, when it has one, names the rows laid out as tall as it (row-estimates.ts).
 */
type Row = {
  key: string;
  render: () => preact.JSX.Element;
  sketch?: () => preact.JSX.Element;
  shape?: () => string | undefined;
};
/** A message's row, with what it was made of: the same message in the same place is the same row. */
type MessageRow = Row & { index: number; agent: Agent | undefined; last: boolean; showVersions: boolean };

interface Props {
  transcript: Transcript;
  agent: Agent | undefined;
}

export function MessageList({ transcript, agent }: Props) {
  const chat = useChat();
  const scroller = useRef<HTMLDivElement>(null);
  const stoppedHere = chat.stoppedHere.value;
  const made = useRef(new WeakMap<Message, MessageRow>()).current;
  const [firstPainted, setFirstPainted] = useState(false);
  const [estimates] = useState(() => new RowEstimates(ESTIMATED_ROW));
  const rows = useMemo(
    () => rowsOf(transcript, agent, chat, stoppedHere, made),
    [transcript, agent, chat, stoppedHere],
  );
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    // A row of a shape measured before comes in at that height: no scroll correction, no second render (LC17).
    estimateSize: (index) => estimates.estimate(rows[index]),
    onMeasured: (index, size) => estimates.learn(rows[index], size),
    // The same function while the rows are the same: a new one makes the virtualizer measure every row again (its
    // positions are memoized on it), which each scroll event's render did for the whole loaded chat.
    getItemKey: useCallback((index: number) => rows[index]?.key ?? index, [rows]),
    // The first paint mounts only the rows on the screen: a chat opened at its end mounted as many rows again above
    // it, unseen, before its last messages could show. Those come in the render after that paint.
    overscan: firstPainted ? OVERSCAN : 0,
    // When rows are put above (an older page), the row at the top keeps its place on the screen.
    anchorTo: "end",
  });
  useLayoutEffect(() => {
    if (chat.atBottom.peek() && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [rows, virtualizer]);
  useEndKeptInView(scroller, () => chat.atBottom.peek());
  useOlderPages(chat, transcript.start, virtualizer.getVirtualItems()[0]?.index);
  const scrollToRow = (index: number) => virtualizer.scrollToIndex(index, { align: "center" });
  const focused = useMessageFocus(rows, scrollToRow, chat.leaveBottom);
  // The message opened for editing (Up in the empty composer) is brought into view if it is out of it, so its box
  // exists and can take the focus; one already in view stays where it is.
  const editing = chat.editing.value;
  useEffect(() => {
    const index = editing === undefined ? -1 : rows.findIndex((row) => row.key === messageRowKey(editing));
    if (index >= 0) virtualizer.scrollToIndex(index, { align: "auto" });
  }, [editing]);
  const onScroll = useFrameRead(() => {
    const element = scroller.current;
    if (element) chat.noteScroll(element.scrollHeight - element.scrollTop - element.clientHeight);
  });
  const items = useOpenedAtEnd(virtualizer.getVirtualItems(), rows.length, chat);
  useLayoutEffect(() => virtualizer.noteMounted(items));
  useAfterPaint(items.length > 0 && !firstPainted, () => setFirstPainted(true));
  const { ranks, mounting } = useMounting(items, chat.atBottom.peek());
  return (
    <div
      class="message-scroller"
      ref={scroller}
      onScroll={onScroll}
      role="log"
      aria-label="Messages"
      aria-live="polite"
      tabIndex={0}
    >
      <div class="message-track" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        <div class="message-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              class={item.key === focused ? "message-row search-focus" : "message-row"}
            >
              <NewestRank.Provider value={ranks?.get(item.key)}>
                <RowContent row={rows[item.index]!} mounting={mounting} />
              </NewestRank.Provider>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

/** A row of the list, and how many rows the render that mounts it mounts (a fling mounts a screen at once). */
type RowProps = { row: Row; mounting: number };

/**
 * A row's content, rendered again only when its row is a new one (the transcript changed), not each time the list
 * renders: a scroll re-renders the list every frame, and re-rendering every row on screen with it (markdown view,
 * toolbar, icons) made each frame of a fast scroll cost a screen of rows. What a row shows that lives in signals or
 * context (editing, versions) updates on its own. Mounted in a fling or past the frame's row budget, a row shows its
 * sketch until the page is still, then its full row, markdown and toolbar at once (scroll-pacing.ts).
 */
class RowContent extends Component<RowProps, { full: boolean }> {
  static override contextType = NewestRank;
  private cancel: (() => void) | undefined;
  /** Whether it mounted as a sketch: its full row is then rendered as a completion (Completing). */
  private readonly sketched: boolean;
  constructor(props: RowProps, rank: number | undefined) {
    super(props);
    this.state = { full: props.row.sketch === undefined || rowInFull(rank, props.mounting) };
    this.sketched = !this.state.full;
  }
  override componentDidMount() {
    if (!this.state.full) this.cancel = whenSettled(() => this.setState({ full: true }));
  }
  override componentWillUnmount() {
    this.cancel?.();
  }
  override shouldComponentUpdate(next: RowProps, state: { full: boolean }): boolean {
    return next.row !== this.props.row || state.full !== this.state.full;
  }
  override render() {
    const { row } = this.props;
    if (!this.state.full && row.sketch) return row.sketch();
    return this.sketched ? <Completing.Provider value={true}>{row.render()}</Completing.Provider> : row.render();
  }
}

/**
 * The list's rows. A message's row is made once and kept while the message object, its index and what it shows stay
 * the same (`made`), so an older page put above, or a message appended, re-renders only the rows that changed, not
 * every row on the screen (RowContent compares rows by identity).
 */
function rowsOf(
  transcript: Transcript,
  agent: Agent | undefined,
  chat: Chat,
  stoppedHere: ReadonlySet<string>,
  made: WeakMap<Message, MessageRow>,
): Row[] {
  const rows: Row[] = [];
  const notesAt = new Map<number, Transcript["notes"]>();
  for (const note of transcript.notes) notesAt.set(note.position, [...(notesAt.get(note.position) ?? []), note]);
  const lastNote = transcript.notes.at(-1);
  const noteRows = (position: number) =>
    (notesAt.get(position) ?? []).map((note) => noteRow(note, note === lastNote ? chat.retry : undefined, stoppedHere));
  // Regenerate belongs to the last reply, and only while no reply is running.
  const lastReply = transcript.live ? -1 : transcript.messages.findLastIndex((message) => message.role === "assistant");
  const start = transcript.start;
  transcript.messages.forEach((message, at) => {
    // Rows are keyed and numbered by the chat's own index (the transcript may start further in).
    const index = start + at;
    rows.push(...noteRows(index));
    // The turn's versions show once: on its first reply, or on its user message while it has none.
    const next = transcript.messages[at + 1];
    const showVersions =
      message.role === "user"
        ? next === undefined || next.role === "user"
        : transcript.messages[at - 1]?.role === "user";
    const last = at === lastReply;
    rows.push(messageRow(made, message, index, agent, last, showVersions));
  });
  rows.push(...noteRows(start + transcript.messages.length));
  const live = transcript.live;
  if (live) rows.push({ key: `live-${live.request_id}`, render: () => <LiveReplyView live={live} /> });
  return rows;
}

function messageRow(
  made: WeakMap<Message, MessageRow>,
  message: Message,
  index: number,
  agent: Agent | undefined,
  last: boolean,
  showVersions: boolean,
): MessageRow {
  const kept = made.get(message);
  if (kept && kept.index === index && kept.agent === agent && kept.last === last && kept.showVersions === showVersions)
    return kept;
  const row: MessageRow = {
    key: messageRowKey(index),
    index,
    agent,
    last,
    showVersions,
    render: () => <MessageItem message={message} index={index} agent={agent} last={last} showVersions={showVersions} />,
    sketch: sketchable(message) ? () => <MessageSketch message={message} /> : undefined,
    shape: () => {
      const shape = plainShape(message);
      return shape && `${shape} ${last ? "last" : ""} ${showVersions ? "versions" : ""}`;
    },
  };
  made.set(message, row);
  return row;
}

function noteRow(
  note: Transcript["notes"][number],
  onRetry: (() => void) | undefined,
  stoppedHere: ReadonlySet<string>,
): Row {
  return {
    key: `n-${note.request_id}-${note.kind}`,
    render: () => <RequestNoteView note={note} onRetry={onRetry} stoppedHere={stoppedHere.has(note.request_id)} />,
  };
}

type Items = ReturnType<ReturnType<typeof useVirtualizer>["getVirtualItems"]>;

/**
 * `read` once in the next animation frame however many times the returned function is called before it. Where the
 * reader stands is read from the page's layout: read in the scroll event, it made the browser lay out the rows the
 * virtualizer had just rendered there, and lay them out again for the frame; read in the frame, one layout serves both.
 */
function useFrameRead(read: () => void): () => void {
  const planned = useRef(0);
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => () => cancelAnimationFrame(planned.current), []);
  return () => {
    if (planned.current !== 0) return;
    planned.current = requestAnimationFrame(() => {
      planned.current = 0;
      latest.current();
    });
  };
}

/**
 * `then` once the frame that paints this render has been painted, when `wanted`. Not a plain effect: Preact runs
 * those after the next frame or after 35 ms, whichever comes first, and a slow device's frame comes later than that.
 * A timer set in the frame's animation callbacks runs after its paint.
 */
function useAfterPaint(wanted: boolean, then: () => void): void {
  const latest = useRef(then);
  latest.current = then;
  useLayoutEffect(() => {
    if (!wanted) return;
    return afterPaint(defaultFrames(), () => latest.current());
  }, [wanted]);
}

/**
 * The rows this render mounts: how many (`mounting`: more than a frame's budget of rows is a fling, scroll-pacing.ts)
 * and, at the bottom (a chat opened at its end, a message appended while the reader is there), their ranks newest
 * first, 0 the newest: the frame's rendering budget goes to the last messages, the ones read first, not to the top
 * rows of the screen. Elsewhere (scrolling) the rows take it in the order they mount, the order they come into view.
 */
function useMounting(
  items: Items,
  atBottom: boolean,
): { ranks: Map<Items[number]["key"], number> | undefined; mounting: number } {
  const shown = useRef(new Set<Items[number]["key"]>());
  const mounting = items.filter((item) => !shown.current.has(item.key));
  shown.current = new Set(items.map((item) => item.key));
  if (!atBottom || mounting.length === 0) return { ranks: undefined, mounting: mounting.length };
  return { ranks: new Map(mounting.reverse().map((item, rank) => [item.key, rank])), mounting: mounting.length };
}

/**
 * Until a chat opened at its end has been scrolled there, no row is rendered: the scroller starts at the top of the
 * first page, and its top rows would be mounted (markdown, toolbars) only to be replaced by the end's a frame later,
 * which doubled the work of opening a long chat. Once the last row is in range (or the reader is not at the bottom,
 * a search result opened the chat further up), the rows are the virtualizer's as they come.
 */
function useOpenedAtEnd(items: Items, count: number, chat: Chat): Items {
  const opened = useRef(false);
  if (!opened.current && count > 0 && (!chat.atBottom.peek() || items.some((item) => item.index === count - 1)))
    opened.current = true;
  return opened.current || count === 0 ? items : [];
}

/**
 * Reads the older page when the first row shown is near the top of the loaded ones, and reads back to a search
 * result's message when it lies before them (use-message-focus.ts then scrolls to it).
 */
function useOlderPages(chat: Chat, start: number, firstShown: number | undefined) {
  const focus = useStore().search.focus.value;
  // Only once the reader left the bottom: the list's first render, before it scrolled to the end, is at the top too.
  const reading = !chat.atBottom.value;
  useEffect(() => {
    if (reading && start > 0 && firstShown !== undefined && firstShown < LOAD_OLDER_WITHIN) void chat.loadOlder();
  }, [start, firstShown, reading]);
  useEffect(() => {
    if (focus?.session_id === chat.session_id && focus && focus.message_index < start)
      void chat.loadOlder(focus.message_index);
  }, [focus, start]);
}
