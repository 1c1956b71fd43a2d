// GET /app-config.json from the origin that served the app: where its server and bridge are, so the pairing screens
// are right with any bridge port or public URL. Read once per page; an older server without the route answers 404,
// and the screens fall back to their guesses. It never carries the encryption key.
import { appConfigRoute, type AppConfig } from "../../../client/index.ts";
import type { AppEnv } from "./env.ts";

export function appConfigLoader(env: AppEnv): () => Promise<AppConfig | undefined> {
  let loading: Promise<AppConfig | undefined> | undefined;
  return () =>
    (loading ??= (async () => {
      try {
        // Relative to the page: the app may be served under a path prefix (the bridge's).
        const response = await env.fetch(new URL(`.${appConfigRoute.path}`, env.location.href).href, {
          headers: { accept: "application/json" },
        });
        if (!response.ok) return undefined;
        const parsed = appConfigRoute.answer.safeParse(await response.json());
        if (!parsed.success) env.report("app-config.json does not match its schema", parsed.error);
        return parsed.success ? parsed.data : undefined;
      } catch (error) {
        env.report("app-config.json could not be read", error);
        loading = undefined;
        return undefined;
      }
    })());
}

/** The bridge address guessed when the server does not say: port 4000 of the host that served the app. */
export function guessedBridgeUrl(env: Pick<AppEnv, "location">): string {
  const scheme = env.location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${env.location.hostname || "127.0.0.1"}:4000/socket`;
}

/** A device name from the browser ("Chrome on Android"). */
export function defaultDeviceName(userAgent: string): string {
  const browser = /Firefox\//.test(userAgent)
    ? "Firefox"
    : /Edg\//.test(userAgent)
      ? "Edge"
      : /Chrome\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "Browser";
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Mac OS X/.test(userAgent)
        ? "macOS"
        : /Windows/.test(userAgent)
          ? "Windows"
          : /Linux/.test(userAgent)
            ? "Linux"
            : "";
  return system ? `${browser} on ${system}` : browser;
}
