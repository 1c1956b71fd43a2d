// When something happened, in a list's words (app/src/state/time.ts; docs/app.md "Start-up" SU5): the words for each
// span, and the locale's formatters made on first use, not when the module loads, so a page's first paint does not
// set up locale data it may not need; in an English-speaking browser, none for a span under a week.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MONTH_KEY, learnDayMonth, writeDayMonth } from "../../app/src/state/day-month.ts";
import { MemoryStorage } from "./support.ts";

const NOW = Date.parse("2026-11-29T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** Every span the relative words cover (under a week), one instant in each count of each unit, both ways. */
function spansUnderAWeek(): { at: string; count: number; unit: "minute" | "hour" | "day" }[] {
  const units = [
    { unit: "minute", ms: MINUTE, under: 60 },
    { unit: "hour", ms: 60 * MINUTE, under: 24 },
    { unit: "day", ms: DAY, under: 7 },
  ] as const;
  return units.flatMap(({ unit, ms, under }) =>
    Array.from({ length: under - 1 }, (_, i) => i + 1).flatMap((size) =>
      [-size, size].map((count) => ({ at: new Date(NOW + count * ms).toISOString(), count, unit })),
    ),
  );
}

/** The module loaded afresh, with every formatter the locale API makes meanwhile counted by kind. */
async function loadCounting() {
  const made = { relative: 0, date: 0 };
  const Relative = Intl.RelativeTimeFormat;
  const DateFormat = Intl.DateTimeFormat;
  vi.spyOn(Intl, "RelativeTimeFormat").mockImplementation(function (
    ...args: ConstructorParameters<typeof Intl.RelativeTimeFormat>
  ) {
    made.relative++;
    return new Relative(...args);
  } as unknown as typeof Intl.RelativeTimeFormat);
  vi.spyOn(Intl, "DateTimeFormat").mockImplementation(function (
    ...args: ConstructorParameters<typeof Intl.DateTimeFormat>
  ) {
    made.date++;
    return new DateFormat(...args);
  } as unknown as typeof Intl.DateTimeFormat);
  const { relativeTime } = await import("../../app/src/state/time.ts");
  return { relativeTime, made };
}

describe("relativeTime", () => {
  it("says each span in the locale's words", async () => {
    const { relativeTime } = await import("../../app/src/state/time.ts");
    const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
    expect(relativeTime(ago(20_000), NOW)).toBe("just now");
    expect(relativeTime(ago(5 * MINUTE), NOW)).toBe(relative.format(-5, "minute"));
    expect(relativeTime(ago(3 * 60 * MINUTE), NOW)).toBe(relative.format(-3, "hour"));
    expect(relativeTime(ago(DAY), NOW)).toBe(relative.format(-1, "day"));
    const old = NOW - 40 * DAY;
    expect(relativeTime(new Date(old).toISOString(), NOW)).toBe(
      new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" }).format(old),
    );
    expect(relativeTime("not a date", NOW)).toBe("");
  });

  it("makes no formatter when loaded, each on its first use, and each once (SU5)", async () => {
    const { relativeTime, made } = await loadCounting();
    expect(made).toEqual({ relative: 0, date: 0 });
    relativeTime(ago(5 * MINUTE), NOW);
    relativeTime(ago(2 * DAY), NOW);
    expect(made).toEqual({ relative: 1, date: 0 });
    relativeTime(ago(40 * DAY), NOW);
    relativeTime(ago(90 * DAY), NOW);
    expect(made).toEqual({ relative: 1, date: 1 });
  });

  it("says a span under a week in English without the locale's data in an English-speaking browser (SU5)", async () => {
    for (const language of ["en-US", "en-GB", "en-IN", "en"]) {
      vi.restoreAllMocks();
      vi.resetModules();
      vi.stubGlobal("navigator", { language });
      const locale = new Intl.RelativeTimeFormat(language, { numeric: "auto" });
      const localeWords = spansUnderAWeek().map(({ count, unit }) => locale.format(count, unit));
      const { relativeTime, made } = await loadCounting();
      const words = spansUnderAWeek().map(({ at }) => relativeTime(at, NOW));
      expect(made, language).toEqual({ relative: 0, date: 0 });
      expect(words, language).toEqual(localeWords);
      relativeTime(ago(40 * DAY), NOW);
      expect(made, language).toEqual({ relative: 0, date: 1 });
    }
  });

  it("asks the locale's formatter in a browser speaking another language", async () => {
    vi.stubGlobal("navigator", { language: "de-DE" });
    const localeWords = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }).format(-5, "minute");
    const { relativeTime, made } = await loadCounting();
    const words = relativeTime(ago(5 * MINUTE), NOW);
    expect(made).toEqual({ relative: 1, date: 0 });
    expect(words).toBe(localeWords);
  });

  it("writes a day and month by the pattern an earlier start learnt, without the locale's formatter (SU6)", async () => {
    vi.stubGlobal("localStorage", new MemoryStorage());
    vi.stubGlobal("navigator", { language: "en-GB" });
    const format = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
    const older = Array.from({ length: 400 }, (_, i) => NOW - (8 + i) * DAY);
    const first = await loadCounting();
    expect(first.relativeTime(ago(40 * DAY), NOW)).toBe(format.format(NOW - 40 * DAY));
    expect(first.made).toEqual({ relative: 0, date: 1 });

    vi.restoreAllMocks();
    vi.resetModules();
    const next = await loadCounting();
    const words = older.map((at) => next.relativeTime(new Date(at).toISOString(), NOW));
    expect(next.made).toEqual({ relative: 0, date: 0 });
    expect(words).toEqual(older.map((at) => format.format(at)));
  });

  it("asks the formatter again under another language, or over a kept value that does not read", async () => {
    const storage = new MemoryStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", { language: "en-GB" });
    (await loadCounting()).relativeTime(ago(40 * DAY), NOW);
    expect(storage.getItem(DAY_MONTH_KEY)).not.toBeNull();
    for (const [language, kept] of [
      ["fr-FR", storage.getItem(DAY_MONTH_KEY)],
      ["en-GB", '{"language":"en-GB","parts":[{"type":"day"}],"months":["x"]}'],
      ["en-GB", "not json"],
    ] as const) {
      vi.restoreAllMocks();
      vi.resetModules();
      vi.stubGlobal("navigator", { language });
      storage.setItem(DAY_MONTH_KEY, kept ?? "");
      const again = await loadCounting();
      again.relativeTime(ago(40 * DAY), NOW);
      expect(again.made, `${language} ${kept}`).toEqual({ relative: 0, date: 1 });
    }
  });
});

describe("a day and month's pattern (app/src/state/day-month.ts)", () => {
  it("writes every day of a year as the locale's formatter does", () => {
    const days = Array.from({ length: 366 }, (_, i) => new Date(2028, 0, 1 + i, 9).getTime());
    for (const locale of ["en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "pt-BR", "ru-RU", "he-IL", "ja-JP", "ko-KR"]) {
      const format = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short" });
      const pattern = learnDayMonth(format, locale);
      expect(pattern, locale).toBeDefined();
      expect(days.map((day) => writeDayMonth(pattern!, day))).toEqual(days.map((day) => format.format(day)));
    }
  });

  it("learns nothing where no pattern reads back: other digits, another calendar", () => {
    for (const locale of ["ar-EG", "fa-IR", "en-US-u-ca-hebrew"]) {
      const format = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short" });
      expect(learnDayMonth(format, locale), locale).toBeUndefined();
    }
  });
});
