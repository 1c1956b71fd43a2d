// Application notifications: banners at the top of every screen, and modal ones as a dialog (phones; on
// desktop the library normalises a modal to inline, shown in the banner stack).
import type { PresentedNotification } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { useObservable } from "../state/use-observable.ts";
import { NotificationCard } from "./notification-card.tsx";
import { NotificationDialog } from "./notification-dialog.tsx";

const none: readonly PresentedNotification[] = [];

export function BannerStack() {
  const { connection } = useStore();
  const items = useObservable(connection.paired.value?.client.notifications.application, none);
  const shown = items.filter((item) => item.decision.presented);
  const banners = shown.filter((item) => item.decision.presented && item.decision.presentation !== "modal");
  const modal = shown.find((item) => item.decision.presented && item.decision.presentation === "modal");
  return (
    <>
      {banners.length > 0 && (
        <section class="banner-stack" aria-label="Notifications">
          {banners.map((item) => (
            <NotificationCard key={item.record.id} item={item} variant="banner" />
          ))}
        </section>
      )}
      {modal && <NotificationDialog item={modal} />}
    </>
  );
}
