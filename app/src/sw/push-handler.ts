// The service worker's part of Web Push (docs/push.md "The service worker"). It is written as two self-contained
// functions (type-checked here) whose text is put into sw.js by service-worker-source.ts: everything each uses must be
// inside it. It shows what the server pushed, replaces by tag (a later push for the same record or chat takes the
// earlier one's place), opens the app at the chat or the approval when tapped, and on "revoked" wipes the app's
// saved data (IndexedDB databases, caches) and its push subscription before saying so. An approval's notification
// offers no actions at all: Approve must never be one (its arguments have to be seen first), and Deny would need
// the device's credentials, which the service worker does not hold.

export function installPushHandlers(sw: ServiceWorkerGlobalScope): void {
  interface Payload {
    v?: number;
    type?: string;
    tag?: string;
    title?: string;
    body?: string;
    session_id?: string;
    notification_id?: string;
    skip_if_focused?: boolean;
  }

  /** The app's hash route of what was pushed: the chat (where its approval card is), else the chat list. */
  const urlOf = (payload: Payload): string => {
    const scope = sw.registration.scope;
    return typeof payload.session_id === "string"
      ? `${scope}#/s/${encodeURIComponent(payload.session_id)}`
      : `${scope}#/`;
  };

  const windows = () => sw.clients.matchAll({ type: "window", includeUncontrolled: true });

  const deleteDatabase = (name: string) =>
    new Promise<void>((resolve) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = request.onblocked = () => resolve();
    });

  /** The device was removed: what it kept of the server's data goes, even while the app is closed. */
  const wipe = async (): Promise<void> => {
    const databases = typeof indexedDB.databases === "function" ? await indexedDB.databases() : [];
    await Promise.all(databases.map((database) => (database.name ? deleteDatabase(database.name) : undefined)));
    await Promise.all((await caches.keys()).map((key) => caches.delete(key)));
    await (await sw.registration.pushManager.getSubscription())?.unsubscribe();
    for (const client of await windows()) client.postMessage({ type: "chat-relay:revoked" });
  };

  const show = async (payload: Payload): Promise<void> => {
    if (payload.type === "revoked") await wipe().catch(() => undefined);
    // The server could not tell whether this device was connected: a focused window shows the reply already.
    if (
      payload.skip_if_focused &&
      (await windows()).some((client) => client.focused && client.visibilityState === "visible")
    )
      return;
    const quiet = payload.type === "done";
    const tag = typeof payload.tag === "string" ? payload.tag : undefined;
    await sw.registration.showNotification(
      typeof payload.title === "string" && payload.title ? payload.title : "Chat relay",
      {
        ...(typeof payload.body === "string" ? { body: payload.body } : {}),
        ...(tag ? { tag, renotify: !quiet } : {}),
        // A "done" replaces what was shown without a sound or a vibration; every push still shows something, since
        // browsers (iOS first) revoke subscriptions whose pushes show nothing.
        silent: quiet,
        requireInteraction: payload.type === "approval",
        icon: new URL("icons/icon-192.png", sw.registration.scope).href,
        data: { url: urlOf(payload), type: payload.type ?? "unknown" },
      } as NotificationOptions,
    );
  };

  sw.addEventListener("push", (event) => {
    let payload: Payload = {};
    try {
      payload = (event.data?.json() as Payload | null) ?? {};
    } catch {
      // Unreadable: still show something (see above).
    }
    event.waitUntil(show(payload));
  });
}

/** A tapped notification opens the app where its data.url points (inside the app's scope); self-contained as above. */
export function installNotificationClicks(sw: ServiceWorkerGlobalScope): void {
  const windows = () => sw.clients.matchAll({ type: "window", includeUncontrolled: true });

  /** Focuses a window of the app at `url`, or opens one. */
  const openApp = async (url: string): Promise<void> => {
    const [existing] = await windows();
    if (!existing) {
      await sw.clients.openWindow(url);
      return;
    }
    // navigate() answers only for a window this worker controls; the message reaches any, and the hash is the route.
    existing.postMessage({ type: "chat-relay:open", url });
    await existing.navigate(url).catch(() => undefined);
    await existing.focus().catch(() => undefined);
  };

  sw.addEventListener("notificationclick", (event) => {
    event.notification.close();
    const data = event.notification.data as { url?: unknown } | null;
    const url =
      typeof data?.url === "string" && data.url.startsWith(sw.registration.scope) ? data.url : sw.registration.scope;
    event.waitUntil(openApp(url));
  });
}

/** The handlers as sw.js runs them. */
export const PUSH_HANDLER_SOURCE = `(${installPushHandlers.toString()})(self);\n(${installNotificationClicks.toString()})(self);\n`;
