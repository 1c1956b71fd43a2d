// Versions of a turn (docs/sessions.md "Versions"). A turn is a user message and the messages after it up to the next
// user message. Regenerate and edit-and-resend replace a turn and everything after it with a new branch; the replaced
// branch is kept as a hidden version on the turn's user message (`other_versions`), so the session's `messages` are
// always the shown path: what indices refer to and what the next request sends. Like ChatGPT's message tree (a
// node's children are its versions, the shown path runs to the current leaf) without storing a tree: a hidden
// branch keeps its own deeper versions inside it, so switching back shows that branch exactly as it was left.
// Pure functions over message lists: SessionService and the runner save what they return.
import type { HiddenVersion, Message } from "../../client/wire/index.ts";

/** The turn's user message at or before `index`, or undefined when only non-user messages precede it. */
export function turnStart(messages: readonly Message[], index: number): number | undefined {
  for (let i = Math.min(index, messages.length - 1); i >= 0; i--) if (messages[i]!.role === "user") return i;
  return undefined;
}

/** The version and count of the turn a message at `index` belongs to (1 of 1 when it has no other versions). */
export function versionOf(messages: readonly Message[], index: number): { version: number; versions: number } {
  const start = turnStart(messages, index);
  const head = start === undefined ? undefined : messages[start];
  return { version: head?.version ?? 1, versions: head?.versions ?? 1 };
}

/**
 * The shown path with the turn at `start` replaced by a new branch that begins with `first`. With `keep`, the
 * current branch from `start` on becomes a hidden version and `first` the newest; without it (a retry of a turn that
 * has no reply to keep) `first` takes the turn's place and its versions stay as they were.
 */
export function branchTurn(messages: readonly Message[], start: number, first: Message, keep: boolean): Message[] {
  const head = messages[start]!;
  const prefix = messages.slice(0, start);
  const versions = head.versions ?? 1;
  const others = head.other_versions ?? [];
  if (!keep) {
    const same = versions > 1 ? { version: head.version ?? 1, versions, other_versions: others } : {};
    return [...prefix, { ...bare(first), ...same }];
  }
  const hidden: HiddenVersion = { version: head.version ?? 1, messages: hiddenBranch(messages.slice(start)) };
  const count = versions + 1;
  return [
    ...prefix,
    { ...bare(first), version: count, versions: count, other_versions: byVersion([...others, hidden]) },
  ];
}

/** The shown path with version `target` of the turn at `start` shown instead; undefined when the turn has no such version. */
export function showVersion(messages: readonly Message[], start: number, target: number): Message[] | undefined {
  const head = messages[start]!;
  const current = head.version ?? 1;
  if (target === current) return [...messages];
  const others = head.other_versions ?? [];
  const wanted = others.find((other) => other.version === target);
  if (!wanted || wanted.messages.length === 0) return undefined;
  const hidden: HiddenVersion = { version: current, messages: hiddenBranch(messages.slice(start)) };
  const versions = head.versions ?? others.length + 1;
  const rest = others.filter((other) => other !== wanted);
  const branch = hiddenBranch(wanted.messages);
  branch[0] = { ...branch[0]!, version: target, versions, other_versions: byVersion([...rest, hidden]) };
  return [...messages.slice(0, start), ...stampTurn(branch, 0)];
}

/** `appended` as they join the end of `current`: replies of a turn with versions carry the turn's version. */
export function stampAppended(current: readonly Message[], appended: readonly Message[]): Message[] {
  const start = turnStart(current, current.length - 1);
  let stamp = start === undefined ? undefined : stampOf(current[start]!);
  return appended.map((message) => {
    if (message.role !== "user") return withStamp(message, stamp);
    stamp = stampOf(message);
    return message;
  });
}

/** Every reply carries its turn's version again (after messages were deleted, a reply may join another turn). */
export function normalizeTurns(messages: readonly Message[]): Message[] {
  let stamp: Stamp | undefined;
  return messages.map((message) => {
    if (message.role !== "user") return withStamp(message, stamp);
    stamp = stampOf(message);
    return message;
  });
}

type Stamp = { version: number; versions: number };

function stampOf(head: Message): Stamp | undefined {
  return (head.versions ?? 1) > 1 ? { version: head.version ?? 1, versions: head.versions! } : undefined;
}

/** A branch as it is kept hidden: its first turn without version fields (they are given back when it is shown). */
function hiddenBranch(branch: readonly Message[]): Message[] {
  const out = [...branch];
  out[0] = bare(out[0]!);
  for (let i = 1; i < out.length && out[i]!.role !== "user"; i++) out[i] = withStamp(out[i]!, undefined);
  return out;
}

/** The turn starting at `start` with its replies stamped with the user message's version. */
function stampTurn(messages: Message[], start: number): Message[] {
  const stamp = stampOf(messages[start]!);
  const out = [...messages];
  for (let i = start + 1; i < out.length && out[i]!.role !== "user"; i++) out[i] = withStamp(out[i]!, stamp);
  return out;
}

/** The message with exactly this stamp (none: no version fields); the same object when it already has it. */
function withStamp(message: Message, stamp: Stamp | undefined): Message {
  if (
    message.version === stamp?.version &&
    message.versions === stamp?.versions &&
    message.other_versions === undefined
  )
    return message;
  const plain = bare(message);
  return stamp ? { ...plain, ...stamp } : plain;
}

function bare(message: Message): Message {
  if (message.version === undefined && message.versions === undefined && message.other_versions === undefined)
    return message;
  const { version: _v, versions: _n, other_versions: _o, ...rest } = message;
  return rest;
}

function byVersion(versions: HiddenVersion[]): HiddenVersion[] {
  return [...versions].sort((a, b) => a.version - b.version);
}
