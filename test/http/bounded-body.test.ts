// The bounded body reader (server/http/bounded-body.ts, docs/documents.md invariant 30): a body read whole leaves no
// listener on its request, so a request that stays open afterwards (a document waiting its turn to be read) does not
// keep the chunks alive beside the body; one over the limit is refused.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBodyUpTo } from "../../server/http/bounded-body.ts";

describe("readBodyUpTo", () => {
  it("reads the body whole and takes its listeners off the request (30)", async () => {
    const body = new PassThrough();
    const before = { data: body.listenerCount("data"), error: body.listenerCount("error") };
    const reading = readBodyUpTo(body, 1024, () => new Error("too large"));
    body.write(Buffer.from("hello, "));
    body.end(Buffer.from("world"));
    expect((await reading).toString()).toBe("hello, world");
    expect({ data: body.listenerCount("data"), error: body.listenerCount("error") }).toEqual(before);
  });

  it("refuses a body over the limit", async () => {
    const body = new PassThrough();
    const reading = readBodyUpTo(body, 4, () => new Error("too large"));
    body.end(Buffer.from("longer than four"));
    await expect(reading).rejects.toThrow("too large");
  });
});
