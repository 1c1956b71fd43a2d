// The cached list's head read early (docs/app.md "Start-up", SU7): the entry's first module starts the read, so it
// must come first and bring nothing else with it; the offline cache hands the start that read once, checked like any
// other, and drops it once something was written or wiped (it would be stale). The read in a browser, and that it
// leaves no database where there was none, is test/app/list-cache.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { headRecord } from "../../app/src/state/list-head.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";
import type { SessionSummary } from "../../client/index.ts";
import { summary } from "../app-dom/support/summaries.ts";

const APP = join(import.meta.dirname, "../../app/src");
const importsOf = (file: string) =>
  [...readFileSync(join(APP, file), "utf8").matchAll(/^import\s+(?:[^"]*\sfrom\s+)?"([^"]+)";/gm)].map(
    (match) => match[1],
  );

const chat = (id: string, title: string): SessionSummary => ({
  ...summary(id, title, "2026-11-29T10:00:00.000Z"),
  archived: false,
});

describe("the list's head read while the modules load (SU7)", () => {
  it("is started by the entry's first import, a module that imports one constant's module and nothing else", () => {
    expect(importsOf("main.tsx")[0]).toBe("./early-head.ts");
    expect(importsOf("early-head.ts")).toEqual(["./state/offline-db-name.ts"]);
    expect(importsOf("state/offline-db-name.ts")).toEqual([]);
  });

  it("answers the start's first read of the head, checked; later reads go to the store", async () => {
    const early = [chat("early", "Read early")];
    const cache = memoryCache(undefined, Promise.resolve(headRecord(early)));
    expect(await cache.readSessionsHead()).toEqual(early);
    expect(await cache.readSessionsHead()).toBeUndefined();

    const hostile = memoryCache(
      undefined,
      Promise.resolve({ ...headRecord([]), chats: [{ id: 7, title: { nested: "x" } }] }),
    );
    expect(await hostile.readSessionsHead()).toBeUndefined();
  });

  it("is dropped once the list was written or the cache wiped before the start read it", async () => {
    const written = memoryCache(undefined, Promise.resolve(headRecord([chat("old", "Stale")])));
    await written.writeSessions([chat("new", "Written since")]);
    expect((await written.readSessionsHead())?.map((item) => item.id)).toEqual(["new"]);

    const wiped = memoryCache(undefined, Promise.resolve(headRecord([chat("old", "Stale")])));
    await wiped.wipe();
    expect(await wiped.readSessionsHead()).toBeUndefined();
  });
});
