// "Unpair this device": revoked on the server first (DELETE /devices/self), so its token stops working everywhere
// at once, then this browser forgets its credentials and wipes what it kept. A failure of the first step leaves the
// device paired (the caller says why); an already revoked device (401) is forgotten as well.
import { UnauthorizedError } from "../../../client/index.ts";
import type { Connection } from "./connection.ts";

export async function unpairThisDevice(connection: Connection): Promise<void> {
  const current = connection.paired.value;
  if (!current) return;
  try {
    await current.client.unpairSelfDevice();
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await connection.forget(false);
}

/**
 * The service worker learned of a revocation first (a "revoked" push, docs/push.md): it wiped the cache and tells
 * every window `{type: "chat-relay:revoked"}`; the window forgets its credentials too. Returns the unsubscribe.
 */
export function forgetOnRevokedMessage(
  worker: Pick<EventTarget, "addEventListener" | "removeEventListener">,
  connection: Connection,
): () => void {
  const onMessage = (event: Event) => {
    if (((event as MessageEvent).data as { type?: unknown } | null)?.type === "chat-relay:revoked")
      void connection.forget(true);
  };
  worker.addEventListener("message", onMessage);
  return () => worker.removeEventListener("message", onMessage);
}
