// The cached chat list in records of at most RECORD_CHATS chats (docs/app.md "Offline", OF11): read one record a task,
// so no task of a phone's main thread deserializes and checks the whole list (10,000 chats took 51-68 ms, CPU
// throttled 4x, the long tasks left in the long chat's scroll, docs/benchmarks.md), and a change rewrites only the
// records holding the chats it changed.
//
// A record is never overwritten: a write puts each changed record under a new key, then the manifest naming the
// list's records in order, then removes the records no longer named. A crash before the manifest leaves the older
// list whole (the new records are unnamed), after it the newer one whole: a read never mixes two writes, so the event
// cursor, written after the list, never covers a chat the list lacks. A chat stays in its record while it lives (a
// change rewrites that record, in its place); new chats fill the last record, then new ones.
import { z } from "zod";
import { sessionSummarySchema, type SessionSummary } from "../../../client/index.ts";
import { nextTask } from "./frames.ts";
import type { KeyValue } from "./offline-cache.ts";

/** The most chats one record holds: a record's read and check, 500 chats, is 3-4 ms of a throttled phone's thread. */
export const RECORD_CHATS = 500;
/** The manifest's key in the `sessions` store: the list's records, in order. */
export const MANIFEST_KEY = "sessions_records";
/** The whole list in one record, as builds before the records kept it: read once (an upgrade), removed at the next write. */
export const LEGACY_KEY = "sessions";
const RECORD_PREFIX = "sessions_record:";

const sessionsSchema = z.array(sessionSummarySchema);
const manifestSchema = z.object({
  /** Which write made it: a record reused from memory must be one this manifest names (another tab may have written). */
  write: z.string(),
  records: z.array(z.object({ key: z.string().startsWith(RECORD_PREFIX), chats: z.number().int().nonnegative() })),
});
type Manifest = z.infer<typeof manifestSchema>;

/** A record as this page last read or wrote it: its chats are the very objects, so an unchanged one is seen at once. */
interface Held {
  key: string;
  chats: readonly SessionSummary[];
}

/**
 * The list as this page last read or wrote it, under the manifest of `write`, with each chat's record by key. The
 * index is kept, not made at each write: a Map of 10,000 chats is itself milliseconds of a throttled phone's thread.
 * It may name chats since gone (a lookup checks the record is still there).
 */
interface Layout {
  write: string;
  records: Held[];
  recordOf: Map<string, string>;
}

/**
 * How old an unnamed record must be before a write removes it. A record no manifest names is a write's that stopped
 * before its manifest (the page closed), or one made beside another tab's write; or another tab's write still under
 * way, which takes milliseconds: only the first two are this old.
 */
export const ABANDONED_AFTER_MS = 60_000;

/**
 * The list's records over the key-value store; `pause` runs between two records' reads (the next task), `now` names
 * a write's records by its time.
 */
export function listRecords(kv: KeyValue, pause: () => Promise<void> = nextTask, now: () => number = Date.now) {
  let held: Layout | undefined;

  /** The whole list, or undefined when none is kept or any record fails its check (the start then reads the server). */
  async function read(): Promise<SessionSummary[] | undefined> {
    const raw = await kv.get(MANIFEST_KEY);
    if (raw === undefined) return readLegacy();
    const manifest = manifestSchema.safeParse(raw);
    if (!manifest.success) return undefined;
    const records: Held[] = [];
    const recordOf = new Map<string, string>();
    for (const { key, chats } of manifest.data.records) {
      await pause();
      const parsed = sessionsSchema.safeParse(await kv.get(key));
      if (!parsed.success || parsed.data.length !== chats) return undefined;
      records.push({ key, chats: parsed.data });
      for (const chat of parsed.data) recordOf.set(chat.id, key);
    }
    held = { write: manifest.data.write, records, recordOf };
    return records.flatMap((record) => record.chats);
  }

  async function readLegacy(): Promise<SessionSummary[] | undefined> {
    const parsed = sessionsSchema.safeParse(await kv.get(LEGACY_KEY));
    return parsed.success ? parsed.data : undefined;
  }

  /** Keeps `list`: its changed records under new keys, the manifest, then the records it no longer names go. */
  async function write(list: readonly SessionSummary[]): Promise<void> {
    const before = await kv.get(MANIFEST_KEY);
    const current = manifestSchema.safeParse(before);
    const reusable = current.success && held?.write === current.data.write ? held : undefined;
    held = undefined;
    const id = writeId(now());
    let count = 0;
    const records = plan(list, reusable).map(({ key, chats }) => ({
      key: key ?? `${RECORD_PREFIX}${id}/${count++}`,
      chats,
      unwritten: key === undefined,
    }));
    for (const record of records) if (record.unwritten) await kv.set(record.key, record.chats);
    await kv.set(MANIFEST_KEY, {
      write: id,
      records: records.map((record) => ({ key: record.key, chats: record.chats.length })),
    } satisfies Manifest);
    const named = new Set(records.map((record) => record.key));
    for (const old of current.success ? current.data.records : []) if (!named.has(old.key)) await kv.remove(old.key);
    if (before === undefined) await kv.remove(LEGACY_KEY);
    await removeAbandoned(named);
    held = {
      write: id,
      records: records.map(({ key, chats }) => ({ key, chats })),
      recordOf: indexOf(records, reusable),
    };
  }

  /** Removes the records no manifest names that are older than ABANDONED_AFTER_MS, so none outlives its use. */
  async function removeAbandoned(named: ReadonlySet<string>): Promise<void> {
    for (const key of await kv.keys(RECORD_PREFIX)) {
      const written = writtenAt(key);
      if (!named.has(key) && (written === undefined || now() - written > ABANDONED_AFTER_MS)) await kv.remove(key);
    }
  }

  return { read, write };
}

/**
 * The records `list` is kept in: each chat in the record it was in (`held`), in the list's order there; new chats fill
 * the last record, then new ones. A record whose chats are the very objects it held keeps its key (it is not
 * written); the others have none. When deletions have left the records under half full, the list is cut afresh.
 */
function plan(list: readonly SessionSummary[], layout?: Layout): Array<{ key?: string; chats: SessionSummary[] }> {
  const held = layout?.records ?? [];
  const position = new Map(held.map((record, index) => [record.key, index]));
  const members = held.map((): SessionSummary[] => []);
  const added: SessionSummary[] = [];
  for (const chat of list) {
    const key = layout?.recordOf.get(chat.id);
    const index = key === undefined ? undefined : position.get(key);
    if (index === undefined) added.push(chat);
    else members[index]!.push(chat);
  }
  const records = members
    .map((chats, index) => ({ key: same(chats, held[index]!.chats) ? held[index]!.key : undefined, chats }))
    .filter((record) => record.chats.length > 0);
  if (records.length > 2 * Math.ceil(list.length / RECORD_CHATS) + 1) return cut(list);
  const last = records.at(-1);
  if (last && added.length > 0 && last.chats.length < RECORD_CHATS) {
    const room = RECORD_CHATS - last.chats.length;
    records[records.length - 1] = { key: undefined, chats: [...last.chats, ...added.splice(0, room)] };
  }
  return [...records, ...cut(added)];
}

/**
 * Each chat's record after a write: the chats of the records written are put in the index it held (the others' stay
 * as they were); a new index when no record was kept.
 */
function indexOf(records: ReadonlyArray<Held & { unwritten: boolean }>, held?: Layout): Map<string, string> {
  const kept = held && records.some((record) => !record.unwritten) ? held.recordOf : new Map<string, string>();
  for (const record of records) if (record.unwritten) for (const chat of record.chats) kept.set(chat.id, record.key);
  return kept;
}

/** `list` cut in records of RECORD_CHATS chats, in order. */
function cut(list: readonly SessionSummary[]): Array<{ key?: string; chats: SessionSummary[] }> {
  const records: Array<{ chats: SessionSummary[] }> = [];
  for (let start = 0; start < list.length; start += RECORD_CHATS)
    records.push({ chats: list.slice(start, start + RECORD_CHATS) });
  return records;
}

/** Whether two records hold the very same chats in the same order (a chat changed is a new object). */
function same(a: readonly SessionSummary[], b: readonly SessionSummary[]): boolean {
  return a.length === b.length && a.every((chat, index) => chat === b[index]);
}

/** A name for one write's records, unlikely to be another tab's at the same moment; it starts with the write's time. */
function writeId(time: number): string {
  return `${time.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The time a record's write began, from its key (`sessions_record:<time>-<random>/<n>`); undefined if unreadable. */
function writtenAt(key: string): number | undefined {
  const time = Number.parseInt(key.slice(RECORD_PREFIX.length).split("-")[0] ?? "", 36);
  return Number.isFinite(time) ? time : undefined;
}
