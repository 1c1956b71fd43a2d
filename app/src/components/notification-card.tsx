// One notification: severity, title, body, and a dismiss button. Dismissal follows the connection's mode
// (mobile: hidden at once, retried later; desktop: stays until the server agrees), both in the client library.
import { useState } from "preact/hooks";
import type { PresentedNotification } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { describeError } from "../state/errors.ts";
import { titleOf } from "../state/sessions.ts";
import { noticeBody } from "../people/audit-notice.ts";

const SEVERITY_LABEL = { info: "Info", success: "Done", warning: "Warning", error: "Error" } as const;

export function NotificationCard({
  item,
  variant,
}: {
  item: PresentedNotification;
  variant: "banner" | "inline" | "dialog";
}) {
  const { connection, sessions } = useStore();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const { record } = item;
  const body = noticeBody(record, (id) => {
    const session = sessions.list.value.find((entry) => entry.id === id);
    return session && titleOf(session);
  });
  const dismiss = async () => {
    const client = connection.paired.value?.client;
    if (!client) return;
    setBusy(true);
    setProblem(undefined);
    try {
      await client.notifications.dismiss(item);
    } catch (error) {
      setProblem(`Could not dismiss: ${describeError(error, connection.badge.value)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div
      class={`notification ${variant} severity-${record.severity}`}
      data-notification-id={record.id}
      role={record.severity === "error" || record.severity === "warning" ? "alert" : "status"}
    >
      <div class="notification-text">
        <span class="severity">{SEVERITY_LABEL[record.severity]}</span>
        <strong class="notification-title">{record.title}</strong>
        {body && <p class="notification-body">{body}</p>}
        {problem && <p class="notification-problem">{problem}</p>}
      </div>
      <button
        type="button"
        class="icon-button dismiss"
        aria-label={`Dismiss: ${record.title}`}
        disabled={busy}
        onClick={dismiss}
      >
        ×
      </button>
    </div>
  );
}
