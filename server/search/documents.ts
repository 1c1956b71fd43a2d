// The rows of the search index (docs/search.md "Index"): search_docs names what each FTS5 row is (a session's message
// or title) with a digest of its text and of who may see it, and search_fts, contentless, holds only the index of the
// words, once for each of those people (person-words.ts). The text itself stays in the session (stored once); results
// read it back from there for their snippets.
import { createHash } from "node:crypto";
import type { Db } from "../db/database.ts";
import { taggedText } from "./person-words.ts";

export interface IndexedDoc {
  id: number;
  digest: string;
}

/**
 * Letters in a row that make a word worth indexing at most: a longer run (base64, a hash, a line of dashes of
 * letters) is cut there, so a pasted blob cannot double the disk the message takes. A search for its first
 * MAX_WORD_LENGTH letters, or a prefix of them, still finds it.
 */
export const MAX_WORD_LENGTH = 64;

/**
 * What the index is given for a text: the text with over-long words cut to their first MAX_WORD_LENGTH letters.
 * One pass over the text, character by character, with constant stack: a Unicode regex with an open-ended repeat
 * (`{65,}`) over a run of millions of letters overflows V8's stack, and a message may hold such a run.
 */
export function indexedText(text: string): string {
  const kept: string[] = [];
  let from = 0; // start of the text not yet kept or cut
  let run = 0; // letters in the current run
  for (let at = 0; at < text.length;) {
    const code = text.codePointAt(at)!;
    if (!isWordCharacter(code)) {
      if (run > MAX_WORD_LENGTH) from = at; // the cut run's tail is dropped
      run = 0;
    } else if (++run === MAX_WORD_LENGTH + 1) {
      kept.push(text.slice(from, at));
    }
    at += code > 0xffff ? 2 : 1;
  }
  if (run <= MAX_WORD_LENGTH) kept.push(text.slice(from));
  return kept.length === 1 ? kept[0]! : kept.join("");
}

/** Characters the unicode61 tokenizer keeps in a token (letters, numbers, marks, private use), as query.ts has it. */
const WORD_CHARACTER = /^[\p{L}\p{N}\p{M}\p{Co}]$/u;
/** What WORD_CHARACTER says of each BMP code point, learnt on first sight: 0 not yet asked, 1 no, 2 yes. */
const bmpClass = new Uint8Array(0x10000);

function isWordCharacter(code: number): boolean {
  if (code < 0x80)
    return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  if (code > 0xffff) return WORD_CHARACTER.test(String.fromCodePoint(code));
  if (bmpClass[code] === 0) bmpClass[code] = WORD_CHARACTER.test(String.fromCharCode(code)) ? 2 : 1;
  return bmpClass[code] === 2;
}

/**
 * Tells two rows apart without keeping their text: the index is rewritten only for a message whose text changed, or
 * whose chat is seen by other people than when it was written (a share, an unshare, a transfer).
 */
export function digestOf(text: string, tags: readonly string[]): string {
  return createHash("sha1").update(tags.join(" "), "utf8").update("\n").update(text, "utf8").digest("base64");
}

/** What search_fts is given for a row: its words (over-long ones cut) once for each person's tag. */
function rowText(text: string, tags: readonly string[]): string {
  return taggedText(indexedText(text), tags);
}

export class SearchDocuments {
  private readonly selectOfSession;
  private readonly insertDoc;
  private readonly updateDigest;
  private readonly deleteDoc;
  private readonly insertText;
  private readonly deleteText;

  constructor(private readonly db: Db) {
    this.selectOfSession = db.prepare<[string], { id: number; message_index: number; digest: string }>(
      "SELECT id, message_index, digest FROM search_docs WHERE session_id = ?",
    );
    this.insertDoc = db.prepare<[string, number, string]>(
      "INSERT INTO search_docs (session_id, message_index, digest) VALUES (?, ?, ?)",
    );
    this.updateDigest = db.prepare<[string, number]>("UPDATE search_docs SET digest = ? WHERE id = ?");
    this.deleteDoc = db.prepare<[number]>("DELETE FROM search_docs WHERE id = ?");
    this.insertText = db.prepare<[number, string]>("INSERT INTO search_fts (rowid, text) VALUES (?, ?)");
    this.deleteText = db.prepare<[number]>("DELETE FROM search_fts WHERE rowid = ?");
  }

  /** A session's indexed rows by message index (TITLE_INDEX for its title). */
  of(sessionId: string): Map<number, IndexedDoc> {
    return new Map(
      this.selectOfSession.all(sessionId).map((row) => [row.message_index, { id: row.id, digest: row.digest }]),
    );
  }

  /** Indexes a message (or title) of a session for the people whose search `tags` are given. */
  add(sessionId: string, index: number, text: string, tags: readonly string[]): void {
    const id = Number(this.insertDoc.run(sessionId, index, digestOf(text, tags)).lastInsertRowid);
    this.insertText.run(id, rowText(text, tags));
  }

  replace(doc: IndexedDoc, text: string, tags: readonly string[]): void {
    this.updateDigest.run(digestOf(text, tags), doc.id);
    this.deleteText.run(doc.id);
    this.insertText.run(doc.id, rowText(text, tags));
  }

  remove(doc: IndexedDoc): void {
    this.deleteDoc.run(doc.id);
    this.deleteText.run(doc.id);
  }

  removeSession(sessionId: string): void {
    for (const doc of this.of(sessionId).values()) this.remove(doc);
  }

  /** Empties the index (a rebuild starts from nothing). */
  clear(): void {
    this.db.exec("DELETE FROM search_docs; INSERT INTO search_fts (search_fts) VALUES ('delete-all');");
  }
}
