// "5 min ago", "yesterday", "12 Mar": how a list shows when something happened.
//
// Each formatter is made once (toLocaleDateString builds one on every call, a cost each row of a long list paid on
// render) and on first use, not when the module loads: making one sets up the browser's locale data for it, tens of
// milliseconds on a phone before the first paint, and a list of recent chats needs only the relative one, a list of
// old ones only the date one (docs/app.md "Start-up").
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};
const relative = once(() => new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }));
const dayMonth = once(() => new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" }));

export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return relative().format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return relative().format(hours, "hour");
  const days = Math.round(hours / 24);
  if (Math.abs(days) < 7) return relative().format(days, "day");
  return dayMonth().format(then);
}
