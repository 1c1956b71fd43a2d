// Hash routes: the app is static files (served by the server or the bridge at any path), so the route lives
// after `#`. pair_url is `<app>/#/pair?code=..&bridge=..` (DESIGN.md); its query is checked with zod.
import { signal } from "@preact/signals";
import { z } from "zod";

export type Route =
  | { name: "sessions" }
  | { name: "chat"; session_id: string }
  | { name: "new_chat" }
  | { name: "pair"; code?: string; bridge?: string; key?: string }
  | { name: "devices" }
  | { name: "history" };

const pairQuerySchema = z.object({
  code: z.string().trim().min(1).max(64).optional(),
  bridge: z.string().trim().regex(/^wss?:\/\//i, "must be a ws:// or wss:// URL").max(2048).optional(),
  /** The server's public key: the pairing answer must be proven to come from it (docs/security.md). */
  key: z.string().regex(/^[A-Za-z0-9_-]{43}$/).optional(),
});

export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?", 2);
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "pair") {
    const raw = Object.fromEntries(new URLSearchParams(query));
    const parsed = pairQuerySchema.safeParse(raw);
    return { name: "pair", ...(parsed.success ? parsed.data : {}) };
  }
  if (parts[0] === "s" && parts[1]) return { name: "chat", session_id: decodeURIComponent(parts[1]) };
  if (parts[0] === "new") return { name: "new_chat" };
  if (parts[0] === "devices") return { name: "devices" };
  if (parts[0] === "history") return { name: "history" };
  return { name: "sessions" };
}

export function hrefOf(route: Route): string {
  switch (route.name) {
    case "chat":
      return `#/s/${encodeURIComponent(route.session_id)}`;
    case "new_chat":
      return "#/new";
    case "pair":
      return "#/pair";
    case "devices":
      return "#/devices";
    case "history":
      return "#/history";
    case "sessions":
      return "#/";
  }
}

export const route = signal<Route>(parseRoute(location.hash));
addEventListener("hashchange", () => (route.value = parseRoute(location.hash)));

export function navigate(next: Route, options: { replace?: boolean } = {}): void {
  const href = hrefOf(next);
  if (options.replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  route.value = next;
}
