// Presentation rules (docs/client.md "Notifications"): explicit supported values win; session notifications default to
// inline, direct action responses to modal, application notifications to banner and never inline; desktop shows
// modal as inline in its rail; an unknown value is reported, never shown with borrowed semantics.
import type { Presentation } from "../wire/notification.ts";

export type Platform = "mobile" | "desktop";
export type Origin = "application" | "session" | "action_response";

export type PresentationDecision =
  | { presented: true; presentation: Presentation; /** desktop: a modal shown in the rail */ normalized: boolean }
  | { presented: false; reason: "unknown_presentation" | "inline_not_allowed"; value: string };

const SUPPORTED: ReadonlySet<string> = new Set<Presentation>(["banner", "inline", "modal"]);

const DEFAULTS: Record<Origin, Presentation> = { application: "banner", session: "inline", action_response: "modal" };

export function decidePresentation(
  requested: string | undefined,
  origin: Origin,
  platform: Platform,
): PresentationDecision {
  if (requested !== undefined && !SUPPORTED.has(requested))
    return { presented: false, reason: "unknown_presentation", value: requested };
  const presentation = (requested ?? DEFAULTS[origin]) as Presentation;
  if (origin === "application" && presentation === "inline")
    return { presented: false, reason: "inline_not_allowed", value: presentation };
  if (platform === "desktop" && presentation === "modal")
    return { presented: true, presentation: "inline", normalized: true };
  return { presented: true, presentation, normalized: false };
}

/** Direct action responses belong to the session when they carry a session_id, else to the connection. */
export function actionResponseOwner(response: {
  session_id?: string | undefined;
}): { scope: "application" } | { scope: "session"; session_id: string } {
  return response.session_id ? { scope: "session", session_id: response.session_id } : { scope: "application" };
}
