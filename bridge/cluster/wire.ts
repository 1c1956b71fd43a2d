// The messages nodes publish to each other on the events channel, as compact text (they are on the hot path: no
// JSON parse of the event's payload, which goes on to the sockets as it came). Fields are separated by newlines,
// which JSON text never holds raw; the payload is last.
//
//   e\n<node>\n<server>\n<event id>\n<prev id>\n<forms>            an event, following <prev id> (encodeForms)
//   r\n<node>\n<server>\n<epoch>\n<after id>\n<1|0>               the history restarted after <after id> (1: a new store)
//   l\n<node>\n<server>\n<since ms>\n-\n<1|0>                      the server's link on <node> went up (1) or down (0)
import { soleAudienceEvent } from "../fanout/audience.ts";
import type { BufferedEvent, EventForm } from "../fanout/replay-buffer.ts";

/**
 * An event's audience and forms as one text (bridge/fanout/audience.ts): `A<tags>` then a line per form, `<p|s>
 * <tags> <payload json>`, tags comma-separated (a tag holds no comma, space or newline; JSON text never holds a raw
 * newline). Text that does not start with `A` is what nodes before audiences wrote, `<plain json>\n<sealed json>`
 * (either side empty), read as the sole audience's.
 */
export function encodeForms(event: BufferedEvent): string {
  let text = `A${event.audience.join(",")}`;
  for (const form of event.forms) text += `\n${form.mode === "plain" ? "p" : "s"} ${form.to.join(",")} ${form.json}`;
  return text;
}

export function decodeForms(id: string, text: string): BufferedEvent {
  if (!text.startsWith("A")) return decodeSoleForms(id, text);
  const lines = text.split("\n");
  const audience = splitTags(lines[0]!.slice(1));
  const forms: EventForm[] = [];
  for (const line of lines.slice(1)) {
    const space = line.indexOf(" ", 2);
    if ((line[0] !== "p" && line[0] !== "s") || line[1] !== " " || space < 0) continue;
    forms.push({
      mode: line[0] === "p" ? "plain" : "e2e",
      to: splitTags(line.slice(2, space)),
      json: line.slice(space + 1),
    });
  }
  return { id, audience, forms };
}

function splitTags(text: string): string[] {
  return text === "" ? [] : text.split(",");
}

function decodeSoleForms(id: string, forms: string): BufferedEvent {
  const split = forms.indexOf("\n");
  const plain = split < 0 ? forms : forms.slice(0, split);
  const sealed = split < 0 ? "" : forms.slice(split + 1);
  return soleAudienceEvent(id, {
    ...(plain === "" ? {} : { payloadJson: plain }),
    ...(sealed === "" ? {} : { sealedJson: sealed }),
  });
}

export type ClusterMessage =
  | { kind: "event"; node: string; serverId: string; event: BufferedEvent; prev: string }
  | { kind: "reset"; node: string; serverId: string; epoch: string; afterId: string; storeChanged: boolean }
  | { kind: "link"; node: string; serverId: string; online: boolean; since: number };

export function encodeClusterEvent(node: string, serverId: string, event: BufferedEvent, prev: string): string {
  return `e\n${node}\n${serverId}\n${event.id}\n${prev}\n${encodeForms(event)}`;
}

export function encodeClusterReset(
  node: string,
  serverId: string,
  epoch: string,
  afterId: string,
  storeChanged: boolean,
): string {
  return `r\n${node}\n${serverId}\n${epoch}\n${afterId}\n${storeChanged ? 1 : 0}`;
}

export function encodeClusterLink(node: string, serverId: string, online: boolean, since: number): string {
  return `l\n${node}\n${serverId}\n${since}\n-\n${online ? 1 : 0}`;
}

const EVENT_ID = /^\d{20}$/;
const MILLISECONDS = /^\d{1,16}$/;
const SERVER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Undefined for anything malformed (another version's message): it is dropped, never thrown. */
export function decodeClusterMessage(text: string): ClusterMessage | undefined {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < 5; i++) {
    const end = text.indexOf("\n", start);
    if (end < 0) return undefined;
    fields.push(text.slice(start, end));
    start = end + 1;
  }
  const last = text.slice(start);
  const [kind, node, serverId, a, b] = fields as [string, string, string, string, string];
  if (kind === "l")
    return SERVER_ID.test(serverId) && MILLISECONDS.test(a)
      ? { kind: "link", node, serverId, online: last === "1", since: Number(a) }
      : undefined;
  if (!SERVER_ID.test(serverId) || !EVENT_ID.test(b) || (kind === "e" && !EVENT_ID.test(a))) return undefined;
  if (kind === "e") return { kind: "event", node, serverId, event: decodeForms(a, last), prev: b };
  if (kind === "r") return { kind: "reset", node, serverId, epoch: a, afterId: b, storeChanged: last === "1" };
  return undefined;
}
