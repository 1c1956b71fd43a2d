// What a server's link says about audiences (docs/bridge.md "Audiences"), turned into what the fan-out matches. A
// server that declared the `audience` feature in its join tags its grants and events itself, and anything it leaves
// untagged reaches nobody (default deny). A server that did not (a server before people) is one audience: every grant
// and event of it gets the sole tag, and everything it relays goes to every device it grants, as before.
import { AUDIENCE_FEATURE, SOLE_AUDIENCE } from "../../client/wire/audience.ts";
import {
  audienceSessionEventSchema,
  serverSessionEventSchema,
  type DeviceGrant,
  type ServerJoinParams,
} from "../../client/wire/frames.ts";
import { audienceEvent, soleAudienceEvent } from "../fanout/audience.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";

export function speaksAudiences(params: Pick<ServerJoinParams, "features">): boolean {
  return params.features?.includes(AUDIENCE_FEATURE) ?? false;
}

/** The grants as the registry keeps them: a server without audiences has its devices in its sole one. */
export function taggedGrants(audiences: boolean, devices: readonly DeviceGrant[]): readonly DeviceGrant[] {
  return audiences ? devices : devices.map((grant) => ({ ...grant, audience: SOLE_AUDIENCE }));
}

/** A relayed event as the bridge holds it, or undefined for a push it does not understand. */
export function eventOfPush(audiences: boolean, payload: Record<string, unknown>): BufferedEvent | undefined {
  if (audiences && payload.audience !== undefined) {
    const parsed = audienceSessionEventSchema.safeParse(payload);
    return parsed.success ? audienceEvent(payload, parsed.data) : undefined;
  }
  if (audiences) return untaggedEvent(payload);
  const parsed = serverSessionEventSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const { event: plain, sealed } = parsed.data;
  return soleAudienceEvent(
    (plain ?? sealed)!.event_id,
    {
      ...(payload.event === undefined ? {} : { payloadJson: JSON.stringify({ event: payload.event }) }),
      ...(payload.sealed === undefined ? {} : { sealedJson: JSON.stringify(payload.sealed) }),
    },
    typeof plain?.session_id === "string" ? plain.session_id : undefined,
  );
}

/**
 * A push of a server that speaks audiences but gave this event none (the base protocol's shape): it keeps its place
 * in the sequence (acked, held, its id the next one's `after`) and reaches nobody.
 */
function untaggedEvent(payload: Record<string, unknown>): BufferedEvent | undefined {
  const parsed = serverSessionEventSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  return { id: (parsed.data.event ?? parsed.data.sealed)!.event_id, audience: [], forms: [] };
}

/** The `after` of a push, whichever shape it has (both carry it the same way). */
export function afterOfPush(payload: Record<string, unknown>): string | undefined {
  return typeof payload.after === "string" ? payload.after : undefined;
}
