// The typed call of the export route a device makes (client/wire/routes/export.ts; the whole export is the admin's).
import type { BinaryBody } from "../../transport/http.ts";
import { exportSessionRoute } from "../../wire/routes/export.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class ExportCalls extends RouteCaller {
  /** The session as a file: `markdown` (text/markdown) or `json` (the lossless export). */
  async exportSession(sessionId: string, format: "markdown" | "json"): Promise<BinaryBody> {
    return this.call(exportSessionRoute, { params: { session_id: sessionId }, query: { format } });
  }
}
