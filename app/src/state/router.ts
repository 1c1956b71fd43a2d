// Hash routes: the app is static files (served by the server or the bridge at any path), so the route lives after
// `#`. A pairing link's query (`#/pair?code=..[&bridge=..][&key=..]`) is kept raw here and read only by the client
// library's parsePairUrl (pair-link.ts), so there is one parser of pair_url.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { AppEnv } from "./env.ts";

export type Route =
  | { name: "sessions" }
  | { name: "chat"; session_id: string }
  /** A new chat; once its first message waits in the outbox (written offline), the address carries its
   * client_session_id, so a reload or a later open finds that chat and its waiting messages again. */
  | { name: "new_chat"; client_session_id?: string }
  | { name: "pair"; query?: string }
  | { name: "devices" }
  | { name: "history" }
  | { name: "archived" }
  | { name: "search" }
  | { name: "settings"; section: SettingsSection }
  | { name: "people" }
  | { name: "audit" }
  /** A share link's read-only view; `link` is `<token>.<key>` as the link carries it (the key never leaves the page). */
  | { name: "shared"; link: string };

/** The Settings screen's sections (docs/app.md "Settings"). */
export const SETTINGS_SECTIONS = ["connections", "agents", "mcp", "personal", "data"] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

function settingsSection(part: string | undefined): SettingsSection {
  return SETTINGS_SECTIONS.find((section) => section === part) ?? "personal";
}

export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?", 2);
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "pair") return query === "" ? { name: "pair" } : { name: "pair", query };
  if (parts[0] === "s" && parts[1]) return { name: "chat", session_id: safeDecode(parts[1]) };
  if (parts[0] === "new")
    return parts[1] ? { name: "new_chat", client_session_id: safeDecode(parts[1]) } : { name: "new_chat" };
  if (parts[0] === "devices") return { name: "devices" };
  if (parts[0] === "history") return { name: "history" };
  if (parts[0] === "archived") return { name: "archived" };
  if (parts[0] === "search") return { name: "search" };
  if (parts[0] === "settings") return { name: "settings", section: settingsSection(parts[1]) };
  if (parts[0] === "people") return parts[1] === "audit" ? { name: "audit" } : { name: "people" };
  if (parts[0] === "shared" && parts[1]) return { name: "shared", link: parts[1] };
  return { name: "sessions" };
}

/** A malformed escape in a hand-typed address is taken as it is, not thrown. */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function hrefOf(route: Route): string {
  switch (route.name) {
    case "chat":
      return `#/s/${encodeURIComponent(route.session_id)}`;
    case "new_chat":
      return route.client_session_id ? `#/new/${encodeURIComponent(route.client_session_id)}` : "#/new";
    // The screens whose address is their name (a pairing link's query is not carried over).
    case "pair":
    case "devices":
    case "history":
    case "archived":
    case "search":
    case "people":
      return `#/${route.name}`;
    case "settings":
      return `#/settings/${route.section}`;
    case "audit":
      return "#/people/audit";
    case "shared":
      return `#/shared/${route.link}`;
    case "sessions":
      return "#/";
  }
}

export interface Router {
  readonly route: ReadonlySignal<Route>;
  navigate(next: Route, options?: { replace?: boolean }): void;
  /** Follows the address bar (back, forward, a typed hash); returns the function that stops. */
  listen(): () => void;
}

export function createRouter(env: AppEnv): Router {
  const route = signal<Route>(parseRoute(env.location.hash));
  return {
    route,
    navigate(next, options = {}) {
      const href = hrefOf(next);
      if (options.replace) env.history.replaceState(null, "", href);
      else env.history.pushState(null, "", href);
      route.value = next;
    },
    listen() {
      const follow = () => (route.value = parseRoute(env.location.hash));
      // The address may have changed while the app was starting (a link opened before the stored pairing resumed,
      // slow when the server is unreachable): follow it now, or that chat never opens.
      if (hrefOf(parseRoute(env.location.hash)) !== hrefOf(route.value)) follow();
      return env.onHashChange(follow);
    },
  };
}
