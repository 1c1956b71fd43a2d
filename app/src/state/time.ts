// "5 min ago", "yesterday", "12 Mar": how a list shows when something happened.
//
// Each formatter is made once (toLocaleDateString builds one on every call, a cost each row of a long list paid on
// render) and on first use, not when the module loads: making the first one sets up the browser's locale data (ICU),
// tens of milliseconds on a phone before the first paint. A start that shows dates needs neither formatter where it
// can help it (docs/app.md "Start-up", SU5, SU6): a browser speaking English has the words of the spans under a week
// said here, the same as the formatter says them in every English locale; a day and month are written by the pattern
// the date formatter was seen to write on an earlier start (day-month.ts).
import { keepDayMonth, keptDayMonth, writeDayMonth } from "./day-month.ts";

/** `make` run on the first call only; its value, undefined too, answers every call after. */
const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
/** The browser's language, read without the locale data; "" outside a browser. */
const language = once(() => globalThis.navigator?.language ?? "");
const speaksEnglish = once(() => /^en(?:-|$)/i.test(language()));
const relative = once(() => new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }));
const dayMonth = once(() => {
  const format = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
  if (language() !== "") keepDayMonth(format, language());
  return format;
});
const keptPattern = once(() => (language() === "" ? undefined : keptDayMonth(language())));

type Unit = "minute" | "hour" | "day";

/**
 * English's words for `count` units from now, |count| under 60: what Intl.RelativeTimeFormat with numeric "auto"
 * says in every English locale (test/app-state/time.test.ts compares them).
 */
function inEnglish(count: number, unit: Unit): string {
  if (unit === "day" && count === -1) return "yesterday";
  if (unit === "day" && count === 1) return "tomorrow";
  const size = Math.abs(count);
  const span = `${size} ${unit}${size === 1 ? "" : "s"}`;
  return count < 0 ? `${span} ago` : `in ${span}`;
}

const say = (count: number, unit: Unit): string =>
  speaksEnglish() ? inEnglish(count, unit) : relative().format(count, unit);

export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return say(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return say(hours, "hour");
  const days = Math.round(hours / 24);
  if (Math.abs(days) < 7) return say(days, "day");
  const pattern = keptPattern();
  return pattern ? writeDayMonth(pattern, then) : dayMonth().format(then);
}
