// Audiences on the server's link to the bridge (docs/bridge.md "Audiences"): who an event is for, as opaque tags. The
// server gives each device's grant its person's tag and each event the tags of everyone it is for, with the forms
// it comes in (the sealed form once per person, or once under the server-wide key for an event for everyone; the
// plain form only for the tags that have a live plain device). The tags travel only between the server and the
// bridge: devices receive exactly what they always did.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";
import { anyEventSchema } from "./events.ts";
import { sealedEventSchema } from "./e2e.ts";
import { eventIdSchema } from "./event-id.ts";

/** The feature both ends name: the bridge's `server:<id>` join reply lists it, the server's join params too. */
export const AUDIENCE_FEATURE = "audience";

/**
 * An audience tag: opaque to the bridge (the server derives it from a person's id with a key of its own), short and
 * of one alphabet. `*` is the tag the bridge gives every grant and event of a server that does not speak audiences
 * (a server before people: one audience, everything for every device).
 */
export const audienceTagSchema = z.string().regex(/^(?:[A-Za-z0-9_-]{1,64}|\*)$/, "an audience tag");

/** The tag of a server that declared no audiences: its every device and event. */
export const SOLE_AUDIENCE = "*";

/** Most tags in one event's audience or one form's `to`: as many as grants in a join. */
export const MAX_AUDIENCE_TAGS = 10_000;

const tagsSchema = lazySchema(() => z.array(audienceTagSchema).max(MAX_AUDIENCE_TAGS));

/** One form of an event and the tags whose devices of that form's mode get it. */
export const audienceFormSchema = lazySchema(() =>
  z.union([
    z.strictObject({ to: tagsSchema.unwrap().min(1), event: anyEventSchema }),
    z.strictObject({ to: tagsSchema.unwrap().min(1), sealed: sealedEventSchema }),
  ]),
);
export type AudienceForm = z.infer<typeof audienceFormSchema>;

/**
 * The audience part of a server → bridge `session_event`: `audience` is everyone the event is for (a device of
 * another tag is skipped, without a gap); `forms` are what they are sent (a device in the audience whose form is
 * missing is a gap, as before). Every form's `to` lies within `audience`.
 */
export const audiencePushSchema = lazySchema(() =>
  z
    .object({
      event_id: eventIdSchema,
      audience: tagsSchema,
      forms: z.array(audienceFormSchema).max(MAX_AUDIENCE_TAGS + 1),
    })
    .refine((push) => {
      const audience = new Set(push.audience);
      return push.forms.every((form) => form.to.every((tag) => audience.has(tag)));
    }, "every form's `to` lies within the audience")
    .refine(
      (push) =>
        push.forms.every((form) => ("event" in form ? form.event.event_id : form.sealed.event_id) === push.event_id),
      "every form is of the event `event_id` names",
    ),
);
export type AudiencePush = z.infer<typeof audiencePushSchema>;
