// Event ids are decimal strings of fixed width (docs/events.md "The log"), so string order is numeric order.
import { z } from "zod";

export const EVENT_ID_WIDTH = 20;
export const ZERO_EVENT_ID = "0".repeat(EVENT_ID_WIDTH);

export const eventIdSchema = z.string().regex(/^\d{20}$/, "an event id is 20 decimal digits");

export function formatEventId(sequence: number): string {
  return String(sequence).padStart(EVENT_ID_WIDTH, "0");
}

/** Accepts any decimal string up to 20 digits ("0", "42", or a full id); undefined for anything else. */
export function parseEventId(text: string): number | undefined {
  if (!/^\d{1,20}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}
