// Whether the link may carry events, and in which shape (docs/bridge.md "Audiences"). A bridge whose join reply lists
// the `audience` feature is sent every event with its audience and per-person forms; a bridge without it can only
// give every device everything, so it is sent the base protocol's shape while one person lives here, and nothing at
// all once there are more: the link is dropped (the apps see the server offline and read over HTTP) and tried again
// later, in case the bridge was upgraded meanwhile.
import { AUDIENCE_FEATURE } from "../../client/wire/audience.ts";
import type { AnyEvent } from "../../client/wire/index.ts";
import type { ServerContext } from "../context.ts";
import type { Audiences } from "../e2e/audiences.ts";
import type { AudienceForms, EventFormer, SoleForms } from "./event-forms.ts";

/** How long a link refused for want of audiences waits before it tries the bridge again. */
export const REFUSED_RETRY_MS = 60_000;

export class AudienceLink {
  constructor(
    private readonly audiences: Audiences,
    private readonly former: EventFormer,
    private readonly log: ServerContext["log"],
  ) {}

  /** What the link pushes for `event`, or undefined when this bridge must not be sent it (see above). */
  formsFor(event: AnyEvent, bridgeFeatures: readonly string[]): AudienceForms | SoleForms | undefined {
    if (bridgeFeatures.includes(AUDIENCE_FEATURE)) return this.former.audienceForms(event);
    const people = this.audiences.livePeople();
    return people.length === 1 ? this.former.soleForms(event, people[0]!) : undefined;
  }

  /** Whether a bridge with these features may be linked to now. */
  allows(bridgeFeatures: readonly string[]): boolean {
    if (bridgeFeatures.includes(AUDIENCE_FEATURE) || this.audiences.livePeople().length <= 1) return true;
    this.log.error(
      { retry_ms: REFUSED_RETRY_MS },
      "the bridge does not route events by audience and more than one person lives here: not linking (devices read over HTTP)",
    );
    return false;
  }
}
