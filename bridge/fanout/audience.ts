// Who a relayed event is for, and in which form each of them gets it (docs/bridge.md "Audiences"). Every event the
// bridge holds carries its audience (tags) and its forms (the payload text one mode of device is sent, with the tags
// whose devices get it). A device is matched by its grant's tag and mode: a tag outside the audience skips the event
// (it was never this device's: no gap, no close); a tag inside it without a form for the device's mode is a gap (the
// device rejoins and fills it over HTTP); a device without a tag matches nothing (default deny).
import { SOLE_AUDIENCE } from "../../client/wire/audience.ts";
import type { AudienceSessionEvent } from "../../client/wire/frames.ts";
import type { DeviceMode } from "../../client/wire/e2e.ts";
import type { BufferedEvent, EventForm } from "./replay-buffer.ts";

/** What a device is sent of one event. */
export type Delivery = { kind: "form"; form: EventForm } | { kind: "not_for_it" } | { kind: "missing" };

/** A device as the fan-out matches it: what its grant says it is sent, and its audience tag (none: nothing). */
export interface Recipient {
  mode: DeviceMode;
  tag: string | undefined;
}

interface TagForms {
  plain?: EventForm;
  e2e?: EventForm;
}

/** Each event's forms by tag, built on first use and collected with the event. */
const indexes = new WeakMap<BufferedEvent, Map<string, TagForms>>();

function formsByTag(event: BufferedEvent): Map<string, TagForms> {
  let index = indexes.get(event);
  if (index) return index;
  index = new Map();
  for (const form of event.forms)
    for (const tag of form.to) {
      let forms = index.get(tag);
      if (!forms) index.set(tag, (forms = {}));
      forms[form.mode] ??= form;
    }
  indexes.set(event, index);
  return index;
}

/** The form of `event` a device of `tag` and `mode` gets, if the event is for it at all. */
export function formFor(event: BufferedEvent, mode: DeviceMode, tag: string | undefined): EventForm | undefined {
  return tag === undefined ? undefined : formsByTag(event).get(tag)?.[mode];
}

/** What a recipient is sent of `event`: its form, nothing (not in the audience), or a gap (its form is missing). */
export function deliveryTo(event: BufferedEvent, { mode, tag }: Recipient): Delivery {
  if (tag === undefined || !inAudience(event, tag)) return { kind: "not_for_it" };
  const form = formFor(event, mode, tag);
  return form ? { kind: "form", form } : { kind: "missing" };
}

/** Audiences are small (a chat's people) or everyone's tags (an event for everyone): a set once it is large. */
const audienceSets = new WeakMap<BufferedEvent, Set<string>>();
const SCAN_LIMIT = 8;

export function inAudience(event: BufferedEvent, tag: string): boolean {
  if (event.audience.length <= SCAN_LIMIT) return event.audience.includes(tag);
  let set = audienceSets.get(event);
  if (!set) audienceSets.set(event, (set = new Set(event.audience)));
  return set.has(tag);
}

/**
 * An event of a server that speaks no audiences (before people): one audience, its sole tag, and the forms it sent
 * (the plain one while a plain device was paired, the sealed one for every encrypting device).
 */
export function soleAudienceEvent(
  id: string,
  forms: { payloadJson?: string; sealedJson?: string },
  sessionId?: string,
): BufferedEvent {
  const to = [SOLE_AUDIENCE];
  return {
    id,
    ...(sessionId === undefined ? {} : { sessionId }),
    audience: to,
    forms: [
      ...(forms.payloadJson === undefined ? [] : [{ mode: "plain" as const, to, json: forms.payloadJson }]),
      ...(forms.sealedJson === undefined ? [] : [{ mode: "e2e" as const, to, json: forms.sealedJson }]),
    ],
  };
}

/**
 * An event of a server that speaks audiences, from its push: each form serialized once as the payload its devices
 * get (`{"event": …}` for plain devices, the sealed event alone for encrypting ones). `raw` is the frame's payload as
 * it came (serialized as sent, never the parsed copy); `parsed` is the same payload validated.
 */
export function audienceEvent(raw: Record<string, unknown>, parsed: AudienceSessionEvent): BufferedEvent {
  const rawForms = raw.forms as Array<Record<string, unknown>>;
  const plain = parsed.forms.find((form) => "event" in form);
  const sessionId = plain && "event" in plain ? plain.event.session_id : undefined;
  return {
    id: parsed.event_id,
    ...(typeof sessionId === "string" ? { sessionId } : {}),
    audience: parsed.audience,
    forms: parsed.forms.map((form, index) =>
      "event" in form
        ? { mode: "plain" as const, to: form.to, json: JSON.stringify({ event: rawForms[index]!.event }) }
        : { mode: "e2e" as const, to: form.to, json: JSON.stringify(rawForms[index]!.sealed) },
    ),
  };
}
