// What the forwarder pushes for one event (docs/security.md "Keys and their lifecycle", docs/bridge.md "Audiences"). To a
// bridge that speaks audiences: the event's audience as tags, the event sealed once per person in it under that
// person's content key (or once under the server-wide key when it is for everyone), and the event in clear only to
// the tags of people with a live plain device. To a bridge that does not (only ever linked while one person lives
// here): the base protocol's sealed form under that person's key, and the plain one while a plain device is paired.
//
// A form that would not fit in one bridge frame is replaced by the event's stub (`truncated: true`), sealed like the
// event would have been: pushed whole it would make the bridge close the socket (1009) and the resend after every
// reconnect would jam the link for good; the stub keeps its place and the apps fetch the event over HTTP.
import type { AudienceForm } from "../../client/wire/audience.ts";
import type { EventEnvelope } from "../../client/wire/crypto/index.ts";
import { MAX_EVENT_BYTES, truncatedStubOf } from "../../client/wire/frames.ts";
import type { AnyEvent } from "../../client/wire/index.ts";
import type { ServerContext } from "../context.ts";
import type { Audiences, EventAudience } from "../e2e/audiences.ts";
import { EVERYONE } from "../e2e/content-keys.ts";
import type { EndToEnd } from "../e2e/end-to-end.ts";

/** The base protocol's push: the sealed form for every encrypting device, the plain one while a plain device lives. */
export interface SoleForms {
  event?: AnyEvent;
  sealed: EventEnvelope;
}

/** The push of a bridge that speaks audiences (client/wire/audience.ts). */
export interface AudienceForms {
  event_id: string;
  audience: string[];
  forms: AudienceForm[];
}

/** base64url's growth (4 characters per 3 bytes) and the envelope's fields (ids, nonce, tag) around the ciphertext. */
const SEALED_GROWTH = 4 / 3;
const SEALED_OVERHEAD = 256;
/** What one tag costs in a form's `to` and the audience (22 characters, quotes, comma), twice. */
const TAG_BYTES = 2 * 26;

export class EventFormer {
  constructor(
    private readonly e2e: EndToEnd,
    private readonly audiences: Audiences,
    private readonly log: ServerContext["log"],
  ) {}

  /** The push for a bridge that speaks audiences. */
  audienceForms(event: AnyEvent): AudienceForms {
    const audience = this.audiences.of(event);
    const people = audience.everyone ? this.audiences.livePeople() : audience.people;
    const tags = people.map((id) => this.audiences.tagOf(id));
    const plainPeople = this.audiences.withPlainDevices();
    const plainTags = people.filter((id) => plainPeople.has(id)).map((id) => this.audiences.tagOf(id));
    const sealings = audience.everyone ? 1 : people.length;
    const fitted = this.fitted(event, sealings, plainTags.length > 0, tags.length);
    const json = JSON.stringify(fitted);
    return {
      event_id: event.event_id,
      audience: tags,
      forms: [
        ...(plainTags.length > 0 ? [{ to: plainTags, event: fitted }] : []),
        ...this.sealedForms(audience, people, event.event_id, json),
      ],
    };
  }

  /** The base protocol's push, for a bridge without audiences while `soleOwner` is the one person here. */
  soleForms(event: AnyEvent, soleOwner: string): SoleForms {
    const plain = this.audiences.withPlainDevices().has(soleOwner);
    const fitted = this.fitted(event, 1, plain, 0);
    const scope = this.audiences.of(event).everyone ? EVERYONE : soleOwner;
    const sealed = this.e2e.sealEvent(scope, event.event_id, JSON.stringify(fitted));
    return plain ? { event: fitted, sealed } : { sealed };
  }

  private sealedForms(audience: EventAudience, people: string[], eventId: string, json: string): AudienceForm[] {
    if (people.length === 0) return [];
    if (audience.everyone) {
      const to = people.map((id) => this.audiences.tagOf(id));
      return [{ to, sealed: this.e2e.sealEvent(EVERYONE, eventId, json) }];
    }
    return people.map((id) => ({ to: [this.audiences.tagOf(id)], sealed: this.e2e.sealEvent(id, eventId, json) }));
  }

  /** The event, or its stub when its forms would not fit in one frame together. */
  private fitted(event: AnyEvent, sealings: number, plain: boolean, tags: number): AnyEvent {
    const bytes = Buffer.byteLength(JSON.stringify(event));
    const needed = sealings * (bytes * SEALED_GROWTH + SEALED_OVERHEAD) + (plain ? bytes : 0) + tags * TAG_BYTES;
    if (needed <= MAX_EVENT_BYTES) return event;
    this.log.warn(
      { event_id: event.event_id, type: event.type, bytes, limit: MAX_EVENT_BYTES },
      "event too big for a bridge frame; pushing a truncated stub",
    );
    return truncatedStubOf(event) as AnyEvent;
  }
}
