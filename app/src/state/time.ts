// "5 min ago", "yesterday", "12 Mar": how a list shows when something happened.
const formatter = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
// Made once: toLocaleDateString builds a formatter on every call, a cost each row of a long list paid on render.
const dayMonth = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });

export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return formatter.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return formatter.format(hours, "hour");
  const days = Math.round(hours / 24);
  if (Math.abs(days) < 7) return formatter.format(days, "day");
  return dayMonth.format(then);
}
