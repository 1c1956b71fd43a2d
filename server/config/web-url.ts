// The one schema of a URL the server dials or hands out (a backend's base_url, an MCP server's, its own public
// address): http: or https: only. `new URL` also takes file:, data: and javascript: URLs, which no backend answers
// at; refused with the field's name where the config or a settings patch is checked (docs/settings.md invariant 13).
import { z } from "zod";

export function webUrl(field: string) {
  return z.url({ protocol: /^https?$/, error: `${field} must be an http: or https: URL` });
}
