// Run as `node --import tsx test/client/support/count-schemas.ts`, a fresh process (vitest's workers share their
// modules, so a library loaded by another test file would count nothing): prints, as one JSON line, how many zod
// schemas loading the client library made, how many more the first parse of a stored event then made, how many the
// first narrowing to one type made, and how many building every other event type's schema made after (counted by
// zod-schemas-made.ts).
import { schemasMade } from "./zod-schemas-made.ts";

const library = await import("../../../client/index.ts");
const wire = await import("../../../client/wire/index.ts");
const atLoad = schemasMade();
const event = wire.anyEventSchema.parse({
  event_id: "00000000000000000001",
  type: "session_deleted",
  session_id: "s1",
});
const byFirstParse = schemasMade() - atLoad;
const narrowed = library.isEvent(event, "session_deleted");
const byFirstNarrow = schemasMade() - atLoad - byFirstParse;
wire.coreEventSchema.safeParse(event);
wire.notificationEventSchema.safeParse(event);
const byEveryType = schemasMade() - atLoad - byFirstParse - byFirstNarrow;
const loaded = typeof library.connect === "function" && narrowed;
console.log(JSON.stringify({ atLoad, byFirstParse, byFirstNarrow, byEveryType, loaded }));
