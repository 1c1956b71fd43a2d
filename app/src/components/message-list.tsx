// The transcript, virtualized: thousands of messages scroll smoothly because only the visible rows exist.
// It follows the bottom while the user is there (a streaming reply stays in view) and leaves them alone when
// they scrolled up to read.
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import type { AgentView as Agent } from "../../../client/index.ts";
import type { Transcript } from "../chat/transcript.ts";
import { useVirtualizer } from "./use-virtualizer.ts";
import { LiveReplyView } from "./live-reply.tsx";
import { MessageItem, type MessageActions } from "./message-item.tsx";
import { RequestNoteView } from "./request-note.tsx";
import { useMessageFocus } from "../search/use-message-focus.ts";

type Row = { key: string; render: () => preact.JSX.Element };

interface Props {
  transcript: Transcript;
  agent: Agent | undefined;
  actions: MessageActions;
  onRetry?: () => void;
  /** Requests this app cancelled (its Stop). */
  stoppedHere?: ReadonlySet<string>;
}

/** How close to the bottom (px) still counts as "at the bottom". */
const STICK_THRESHOLD = 80;

export function MessageList({ transcript, agent, actions, onRetry, stoppedHere = NONE }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const rows = useMemo(
    () => rowsOf(transcript, agent, actions, onRetry, stoppedHere),
    [transcript, agent, actions, onRetry, stoppedHere],
  );
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 6,
  });
  useLayoutEffect(() => {
    if (atBottom.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [rows, virtualizer]);
  const focused = useMessageFocus(rows, (index) => virtualizer.scrollToIndex(index, { align: "center" }), atBottom);
  const onScroll = () => {
    const element = scroller.current;
    if (element) atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_THRESHOLD;
  };
  const items = virtualizer.getVirtualItems();
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
              {rows[item.index]!.render()}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

const NONE: ReadonlySet<string> = new Set();

function rowsOf(
  transcript: Transcript,
  agent: Agent | undefined,
  actions: MessageActions,
  onRetry: (() => void) | undefined,
  stoppedHere: ReadonlySet<string>,
): Row[] {
  const rows: Row[] = [];
  const notesAt = new Map<number, Transcript["notes"]>();
  for (const note of transcript.notes) notesAt.set(note.position, [...(notesAt.get(note.position) ?? []), note]);
  const lastNote = transcript.notes.at(-1);
  // Regenerate belongs to the last reply, and only while no reply is running.
  const lastReply = transcript.live ? -1 : transcript.messages.findLastIndex((message) => message.role === "assistant");
  transcript.messages.forEach((message, index) => {
    for (const note of notesAt.get(index) ?? [])
      rows.push(noteRow(note, note === lastNote ? onRetry : undefined, stoppedHere));
    // The turn's versions show once: on its first reply, or on its user message while it has none.
    const next = transcript.messages[index + 1];
    const showVersions =
      message.role === "user"
        ? next === undefined || next.role === "user"
        : transcript.messages[index - 1]?.role === "user";
    const last = index === lastReply;
    rows.push({
      key: `m${index}`,
      render: () => (
        <MessageItem
          message={message}
          index={index}
          agent={agent}
          actions={actions}
          last={last}
          showVersions={showVersions}
        />
      ),
    });
  });
  for (const note of notesAt.get(transcript.messages.length) ?? [])
    rows.push(noteRow(note, note === lastNote ? onRetry : undefined, stoppedHere));
  const live = transcript.live;
  if (live) rows.push({ key: `live-${live.request_id}`, render: () => <LiveReplyView live={live} /> });
  return rows;
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
