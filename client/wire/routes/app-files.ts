// The companion app's own files at `/` (docs/app.md "Run it"): one route per file of the build (or the "not built"
// page at `/`), each answered as bytes without a token. The server gives every route of that scope this contract.
import { bytesAnswer, defineRoute } from "./route.ts";

export const appFileRoute = defineRoute("GET", "/*", () => ({
  answer: bytesAnswer,
  bytes: true,
  open: true,
}));

/**
 * The Content-Security-Policy the server and the bridge send with the app's index.html (docs/security.md "The app's
 * page"): scripts only from the app's own files (no inline script, no eval, so text that slipped into the page as HTML
 * cannot run), no plugins, no framing, no base or form targets. Styles allow inline ones (the math renderer writes
 * style attributes); images allow data:, blob: and web addresses (attachments by URL); connections go to whatever
 * server and bridge the app is paired with, which are not known when the page is served.
 */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss: http: https:",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
