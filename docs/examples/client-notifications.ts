// docs/client.md "Dismiss" and "Handle UI effects": render the rail, dismiss, and reload what effects invalidate.
import type { ChatClient, PresentedNotification } from "../../client/index.ts";

export function renderRail(client: ChatClient, render: (items: readonly PresentedNotification[]) => void): () => void {
  render(client.notifications.application.get());
  return client.notifications.application.subscribe(render);
}

export async function onDismissTap(client: ChatClient, item: PresentedNotification): Promise<void> {
  const result = await client.notifications.dismiss(item, "user");
  // mobile: "queued" means hidden now and retried on reconnect; "conflict" means the record changed meanwhile.
  if (result.status === "conflict") console.log("It changed before you dismissed it; showing the current version.");
}

export function handleEffects(
  client: ChatClient,
  reloadSessionList: () => Promise<void>,
  reloadSession: (id: string) => Promise<void>,
): () => void {
  const { invalidations } = client.notifications;
  // A failed reload leaves the invalidation pending; retry it on the next change or refresh, not in a tight loop.
  const failed = new Set<string>();
  return invalidations.pending.subscribe((pending) => {
    for (const invalidation of pending) {
      const attempt = `${JSON.stringify(invalidation.target)}#${invalidation.revision}`;
      if (invalidation.claimed || failed.has(attempt)) continue;
      const { target } = invalidation;
      // reload() claims this revision, runs the reload, and clears it only if no newer invalidation arrived;
      // a failed reload leaves it pending for the next attempt.
      const run =
        target.kind === "session"
          ? () => reloadSession(target.session_id)
          : target.kind === "sessions_list"
            ? reloadSessionList
            : undefined;
      if (run) invalidations.reload(target, run).catch(() => failed.add(attempt));
    }
  });
}
