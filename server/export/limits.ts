// What an import may bring (docs/export.md "Limits"): the limits the routes apply to what they store, applied to
// each imported chat before anything is stored, so an import cannot store what the API would refuse. A chat-relay
// record with a title of 7 MiB imported as it was, and every chat list then carried it.
import { MAX_ATTACHMENTS } from "../../client/wire/routes/requests.ts";
import type { ImportedChat } from "./format.ts";
import type { Slices } from "./slices.ts";

export interface ImportLimits {
  /** The longest message content: what POST /sessions/{id}/send takes in one body (sendBodyLimit). */
  maxMessageChars: number;
}

/** As PATCH /sessions/{id}: a title and a model name of at most 200 characters. */
export const MAX_TITLE_CHARS = 200;
/** Messages one chat may bring, counting its turns' hidden versions. */
export const MAX_IMPORTED_MESSAGES = 100_000;

type Counted = { messages: number };

/** The first limit the chat breaks, as `<path>: <rule>`, or undefined; message by message, in slices. */
export async function limitBroken(
  chat: ImportedChat,
  limits: ImportLimits,
  slices: Pick<Slices, "step">,
): Promise<string | undefined> {
  for (const field of ["title", "model"] as const) {
    const value = chat.fields[field];
    if (typeof value === "string" && value.length > MAX_TITLE_CHARS)
      return `${field}: ${value.length} characters, at most ${MAX_TITLE_CHARS} (as PATCH /sessions/{id})`;
  }
  const counted = { messages: 0 };
  for (const [index, message] of chat.messages.entries()) {
    const broken = messagesBroken([message], "messages", limits, counted, index);
    if (broken) return broken;
    await slices.step();
  }
  return undefined;
}

function messagesBroken(
  messages: readonly unknown[],
  path: string,
  limits: ImportLimits,
  counted: Counted,
  first = 0,
): string | undefined {
  for (const [n, message] of messages.entries()) {
    if (++counted.messages > MAX_IMPORTED_MESSAGES)
      return `${path}: more than ${MAX_IMPORTED_MESSAGES} messages in one chat (versions included)`;
    const broken = messageBroken(message as Record<string, unknown>, `${path}.${first + n}`, limits, counted);
    if (broken) return broken;
  }
  return undefined;
}

function messageBroken(
  message: Record<string, unknown>,
  path: string,
  limits: ImportLimits,
  counted: Counted,
): string | undefined {
  const content = message["content"];
  if (typeof content === "string" && content.length > limits.maxMessageChars)
    return `${path}.content: ${content.length} characters, at most ${limits.maxMessageChars} (as POST /sessions/{id}/send)`;
  const attachments = (message["metadata"] as { attachments?: unknown } | undefined)?.attachments;
  if (Array.isArray(attachments) && attachments.length > MAX_ATTACHMENTS)
    return `${path}.metadata.attachments: ${attachments.length} attachments, at most ${MAX_ATTACHMENTS} (as POST /sessions/{id}/send)`;
  const versions = message["other_versions"];
  if (!Array.isArray(versions)) return undefined;
  for (const [n, version] of versions.entries()) {
    const hidden = (version as { messages?: unknown }).messages;
    if (!Array.isArray(hidden)) continue;
    const broken = messagesBroken(hidden, `${path}.other_versions.${n}.messages`, limits, counted);
    if (broken) return broken;
  }
  return undefined;
}
