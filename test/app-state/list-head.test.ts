// The cached list's head read without zod before the first render (docs/app.md "Start-up", SU9): its format stamp
// stands for the check, so the stamp must follow the summary's schema, and a head that is not this build's reads as
// absent, as a failed check did.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chatsOfHead, HEAD_FORMAT, headRecord } from "../../app/src/state/list-head.ts";
import { HEAD_CHATS } from "../../app/src/state/list-order.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";
import { sessionSummarySchema, type SessionSummary } from "../../client/index.ts";
import { summary } from "../app-dom/support/summaries.ts";

const chat = (id: string): SessionSummary => ({
  ...summary(id, `Chat ${id}`, "2026-11-29T10:00:00.000Z"),
  archived: false,
});

describe("the cached list's head, read by its format stamp (SU9)", () => {
  it("is stamped with the fingerprint of the summary's schema as it is now", () => {
    const schema = JSON.stringify(z.toJSONSchema(sessionSummarySchema, { io: "output", unrepresentable: "any" }));
    const fingerprint = createHash("sha256").update(schema).digest("hex").slice(0, 12);
    // On failure: the summary's schema changed; set HEAD_FORMAT (app/src/state/list-head.ts) to the value received,
    // so the heads cached by earlier builds read as absent.
    expect(HEAD_FORMAT).toBe(`summary-${fingerprint}`);
  });

  it("reads back the head this build wrote, as written", async () => {
    const cache = memoryCache();
    const list = [chat("a"), chat("b")];
    await cache.writeSessions(list);
    expect(await cache.readSessionsHead()).toEqual(list);
  });

  it("reads as absent a head an earlier build wrote, or one of another format", async () => {
    const chats = [chat("a")];
    // Builds before the stamp kept the head as a bare array of summaries.
    expect(await memoryCache(undefined, Promise.resolve(chats)).readSessionsHead()).toBeUndefined();
    const older = memoryCache(undefined, Promise.resolve({ format: "summary-000000000000", chats }));
    expect(await older.readSessionsHead()).toBeUndefined();
    expect(chatsOfHead(headRecord(chats))).toEqual(chats);
  });

  it("reads as absent a record whose chats a row could not read, or more than a head holds", () => {
    const stamped = (chats: unknown[]) => ({ format: HEAD_FORMAT, chats });
    expect(chatsOfHead(stamped([chat("a"), { ...chat("b"), id: 7 }]))).toBeUndefined();
    expect(chatsOfHead(stamped([{ ...chat("a"), title: undefined }]))).toBeUndefined();
    expect(chatsOfHead(stamped([null]))).toBeUndefined();
    expect(chatsOfHead({ format: HEAD_FORMAT, chats: "a" })).toBeUndefined();
    expect(chatsOfHead(null)).toBeUndefined();
    const many = Array.from({ length: HEAD_CHATS + 1 }, (_, index) => chat(`c${index}`));
    expect(chatsOfHead(stamped(many))).toBeUndefined();
    expect(headRecord(many).chats).toHaveLength(HEAD_CHATS);
  });
});
