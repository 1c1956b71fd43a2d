// The affected person is told (docs/people.md "Audit"): each audit entry about a person's chats or devices (a read of
// their chat with the admin token, a pairing for them, a transfer of their chats) becomes an application notification
// meant for that person only. Keyed by action and chat, so repeated reads update one notice instead of piling up.
import type { FastifyBaseLogger } from "fastify";
import { parseProducer, producerInputSchema } from "../notifications/input.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import type { AuditInput, AuditLog } from "./audit-log.ts";

const TITLES: Partial<Record<AuditInput["action"], string>> = {
  admin_token_read: "The server's admin token opened one of your chats",
  pairing_for_person: "An admin made a pairing code for a new device of yours",
  chats_transferred: "A chat was transferred to you or from you by an admin",
};

export function tellAffectedPeople(
  audit: AuditLog,
  notifications: NotificationService,
  log: Pick<FastifyBaseLogger, "warn">,
): void {
  audit.onRecord((entry) => {
    const title = TITLES[entry.action];
    if (title === undefined || entry.person_id === null) return;
    try {
      notifications.application.publish(
        parseProducer(producerInputSchema, {
          key: `audit:${entry.action}:${entry.session_id ?? entry.person_id}`,
          severity: "warning",
          title,
          ...(entry.session_id !== undefined ? { body: `Chat ${entry.session_id}` } : {}),
          audience: [entry.person_id],
        }),
        "people",
      );
    } catch (error) {
      log.warn({ err: error, action: entry.action }, "audit notice not published");
    }
  });
}
