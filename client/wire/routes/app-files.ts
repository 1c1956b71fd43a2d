// The companion app's own files at `/` (docs/app.md "Run it"): one route per file of the build (or the "not built"
// page at `/`), each answered as bytes without a token. The server gives every route of that scope this contract.
import { bytesAnswer, defineRoute } from "./route.ts";

export const appFileRoute = defineRoute({
  method: "GET",
  path: "/*",
  answer: bytesAnswer,
  bytes: true,
  status: 200,
  errors: [],
  open: true,
});
