// What the forwarder pushes for one event (docs/security.md): the event sealed once under the current content key,
// for every encrypting device, and the event in clear only while a plain device is paired. A form that would not fit
// in one bridge frame is replaced by the event's stub (`truncated: true`), sealed like the event would have been:
// pushed whole it would make the bridge close the socket (1009) and the resend after every reconnect would jam the
// link for good; the stub keeps its place and the apps fetch the event over HTTP.
import type { EventEnvelope } from "../../client/wire/crypto/index.ts";
import { MAX_EVENT_BYTES, truncatedStubOf } from "../../client/wire/frames.ts";
import type { AnyEvent } from "../../client/wire/index.ts";
import type { ServerContext } from "../context.ts";
import type { EndToEnd } from "../e2e/end-to-end.ts";
import type { PairingService } from "../pairing/pairing-service.ts";

export interface EventForms {
  event?: AnyEvent;
  sealed: EventEnvelope;
}

/** base64url's growth (4 characters per 3 bytes) and the envelope's fields (ids, nonce, tag) around the ciphertext. */
const SEALED_GROWTH = 4 / 3;
const SEALED_OVERHEAD = 256;

export class EventFormer {
  constructor(
    private readonly e2e: EndToEnd,
    private readonly pairing: PairingService,
    private readonly log: ServerContext["log"],
  ) {}

  forms(event: AnyEvent): EventForms {
    const plain = this.pairing.hasPlainDevices();
    let json = JSON.stringify(event);
    let fitted = event;
    const bytes = Buffer.byteLength(json);
    // Both forms share one frame: the sealed one alone must fit, and the plain one beside it when it goes too.
    const needed = bytes * SEALED_GROWTH + SEALED_OVERHEAD + (plain ? bytes : 0);
    if (needed > MAX_EVENT_BYTES) {
      this.log.warn(
        { event_id: event.event_id, type: event.type, bytes, limit: MAX_EVENT_BYTES },
        "event too big for a bridge frame; pushing a truncated stub",
      );
      fitted = truncatedStubOf(event) as AnyEvent;
      json = JSON.stringify(fitted);
    }
    const sealed = this.e2e.sealEvent(event.event_id, json);
    return plain ? { event: fitted, sealed } : { sealed };
  }
}
