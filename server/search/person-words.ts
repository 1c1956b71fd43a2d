// Whose words a row of the search index holds (docs/search.md "One index, read per person"). The index is one FTS5
// table for the server, but each word of a chat is written once for every person who may see the chat, prefixed by
// that person's tag: `3f9a0c1ebanana` is "banana" in a chat person 3f9a0c1e owns or holds a share of. A person's query
// asks for their own tag's words only, so it reads only their rows (their chats and those shared with them) however
// many other people's chats the server holds; the visibility filter of the query stays, so a clash of two tags costs
// time, never a leak.
import { createHash } from "node:crypto";
import { tokens } from "../../client/wire/search-words.ts";

/** Characters of a person's tag (hex): fixed, so no person's tag is the start of another's. */
export const TAG_LENGTH = 8;

/**
 * Words of a row written at most, over all its tags: a message of millions of words in a chat shared with 20 people
 * would otherwise be handed to the index as a text of hundreds of megabytes. A private chat's message is indexed up to
 * its millionth word, a chat of 21 people's up to its 47,619th.
 */
export const MAX_ROW_WORDS = 1_000_000;

/** A person's tag: the first TAG_LENGTH hex digits of the SHA-256 of their id (letters and digits: one token). */
export function searchTag(personId: string): string {
  return createHash("sha256").update(personId, "utf8").digest("hex").slice(0, TAG_LENGTH);
}

/** What the index is given for `text` seen by the people of `tags`: every folded word of it, once per tag. */
export function taggedText(text: string, tags: readonly string[]): string {
  if (tags.length === 0) return "";
  const most = Math.floor(MAX_ROW_WORDS / tags.length);
  const words: string[] = [];
  for (const token of tokens(text)) {
    if (words.length >= most) break;
    if (token.folded !== "") words.push(token.folded);
  }
  if (words.length === 0) return "";
  return tags.map((tag) => tag + words.join(` ${tag}`)).join(" ");
}
