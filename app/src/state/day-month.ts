// "12 Mar", "Mar 12", "12. März": a day and month as the locale writes them, learnt once from the locale's formatter
// and kept in localStorage beside the browser's language, so a later start writes them without the formatter. Making
// the first formatter sets up the browser's locale data (ICU), about 70 ms with the CPU throttled 4x, which a first
// screen of chats older than a week would otherwise pay before its first paint (docs/app.md "Start-up", SU6).
//
// Only a pattern that reads back exactly is kept: the day in ASCII digits and twelve Gregorian months, each written
// one way all month; a locale with other digits or another calendar keeps asking the formatter.
import { z } from "zod";
import { pageStorage, readStored, writeStored } from "./local-store.ts";

export const DAY_MONTH_KEY = "chat-relay.day-month";

type Part = { type: "day" } | { type: "month" } | { type: "literal"; value: string };

export interface DayMonthPattern {
  /** The browser's language it was learnt under (navigator.language): another language learns again. */
  language: string;
  /** The parts in the locale's order, the day and the month as slots. */
  parts: Part[];
  /** January's to December's names as the pattern writes them. */
  months: string[];
}

/** Built on first use: nothing here is needed before a date older than a week is shown. */
const patternSchema = () =>
  z.object({
    language: z.string(),
    parts: z
      .array(
        z.union([
          z.object({ type: z.enum(["day", "month"]) }),
          z.object({ type: z.literal("literal"), value: z.string().max(16) }),
        ]),
      )
      .max(8),
    months: z.array(z.string().max(32)).length(12),
  });

/** The days of each month the learnt pattern is checked on: a month named one way from its first day to its last. */
const SAMPLE_DAYS = [1, 9, 12, 28] as const;

/** The pattern `format` writes, or undefined when no pattern reproduces it (other digits, another calendar). */
export function learnDayMonth(format: Intl.DateTimeFormat, language: string): DayMonthPattern | undefined {
  let parts: Part[] | undefined;
  const months: string[] = [];
  for (let month = 0; month < 12; month++) {
    for (const day of SAMPLE_DAYS) {
      const read = readParts(format.formatToParts(new Date(2001, month, day, 12)), day);
      if (!read || (parts && !sameParts(parts, read.parts))) return undefined;
      if (months[month] !== undefined && months[month] !== read.month) return undefined;
      parts = read.parts;
      months[month] = read.month;
    }
  }
  return parts && { language, parts, months };
}

function readParts(written: Intl.DateTimeFormatPart[], day: number): { parts: Part[]; month: string } | undefined {
  let month: string | undefined;
  const parts: Part[] = [];
  for (const part of written) {
    if (part.type === "month" && month === undefined) month = part.value;
    else if (part.type === "literal") parts.push({ type: "literal", value: part.value });
    else if (part.type !== "day" || part.value !== String(day)) return undefined;
    if (part.type !== "literal") parts.push({ type: part.type });
  }
  return month === undefined ? undefined : { parts, month };
}

const sameParts = (a: readonly Part[], b: readonly Part[]) => JSON.stringify(a) === JSON.stringify(b);

/** `time` (ms) written by the pattern, in the local time zone as the formatter writes it. */
export function writeDayMonth(pattern: DayMonthPattern, time: number): string {
  const date = new Date(time);
  const slot = (part: Part) =>
    part.type === "day" ? String(date.getDate()) : part.type === "month" ? pattern.months[date.getMonth()] : part.value;
  return pattern.parts.map(slot).join("");
}

/** The pattern kept for `language`, if any. */
export function keptDayMonth(language: string): DayMonthPattern | undefined {
  const env = pageStorage();
  const kept = env && readStored(env, DAY_MONTH_KEY, patternSchema());
  return kept?.language === language ? kept : undefined;
}

/** Learns `format`'s pattern and keeps it for the next start. */
export function keepDayMonth(format: Intl.DateTimeFormat, language: string): void {
  const env = pageStorage();
  const pattern = env && learnDayMonth(format, language);
  if (env && pattern) writeStored(env, DAY_MONTH_KEY, pattern);
}
