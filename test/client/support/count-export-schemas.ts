// Run as `node --import tsx test/client/support/count-export-schemas.ts`, a fresh process (as count-schemas.ts, counted
// by zod-schemas-made.ts): prints, as one JSON line, how many zod schemas the first look into the session's schema
// made once the export's module (server/export/format.ts) was loaded (none when that load built it), and whether a
// chat record then parses as before, a message's field the wire does not name kept.
import { schemasMade } from "./zod-schemas-made.ts";

const wire = await import("../../../client/wire/index.ts");
const format = await import("../../../server/export/format.ts");
const loaded = schemasMade();
wire.sessionSchema.unwrap();
const bySessionLook = schemasMade() - loaded;
const record = format.chatRecordSchema.safeParse({
  format: format.CHAT_RECORD_FORMAT,
  version: format.CHAT_RECORD_VERSION,
  source_id: "src-1",
  exported_at: "2026-11-30T00:00:00.000Z",
  session: {
    id: "s1",
    agent_id: "default",
    version: 1,
    created_at: "2026-11-30T00:00:00.000Z",
    updated_at: "2026-11-30T00:00:00.000Z",
    messages: [{ role: "user", content: "hi", kept: "as it is" }],
    metadata: {},
  },
});
const kept = record.success ? (record.data.session.messages[0] as { kept?: string }).kept : undefined;
console.log(JSON.stringify({ bySessionLook, parsed: record.success, kept }));
