// The error registry (client/wire/errors.ts, bridge-errors.ts, library-errors.ts, close-codes.ts) holds every code
// the source raises and every code the docs name: a code added to a route, a channel or the library without its
// entry, or documented under a spelling the registry does not have, fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_REASONS, isBridgeReason } from "../../client/wire/bridge-errors.ts";
import { isHttpErrorCode, statusesOf } from "../../client/wire/errors.ts";
import { pairingErrorReasonSchema } from "../../client/wire/frames.ts";
import { LIBRARY_ERRORS } from "../../client/wire/library-errors.ts";
import {
  BRIDGE_DOCUMENTED,
  BRIDGE_RAISES,
  CHANNEL_RETURNS,
  filesUnder,
  HTTP_DOCUMENTED,
  HTTP_RAISES,
  LIBRARY_RAISES,
  ROOT,
  scan,
  type Found,
} from "./source-scan.ts";

const serverFiles = [...filesUnder("server", ".ts"), "bridge/http/routes.ts"];
const bridgeFiles = [
  ...filesUnder("bridge", ".ts"),
  ...filesUnder("server/forwarder", ".ts"),
  ...filesUnder("server/pairing", ".ts"),
];
const docs = [...filesUnder("docs", ".md").filter((file) => file !== "docs/errors.md"), "README.md"];

const unregistered = (found: Found[], registered: (code: string) => boolean) =>
  found.filter((f) => !registered(f.code)).map((f) => `${f.code} (${f.at})`);

describe("the error registry", () => {
  it("holds every HTTP code the server raises", () => {
    const raised = scan(serverFiles, HTTP_RAISES);
    // The scan finds the codes at all (a broken pattern must not pass by finding nothing).
    expect(new Set(raised.map((f) => f.code)).size).toBeGreaterThan(30);
    expect(unregistered(raised, isHttpErrorCode)).toEqual([]);
  });

  it("holds every reason the bridge refuses a join or a push with", () => {
    const raised = [
      ...scan(bridgeFiles, BRIDGE_RAISES),
      ...scan(filesUnder("bridge/channels", ".ts"), CHANNEL_RETURNS),
    ];
    expect(new Set(raised.map((f) => f.code)).size).toBeGreaterThan(10);
    expect(unregistered(raised, isBridgeReason)).toEqual([]);
    // The pairing join's wire schema names only registered reasons.
    expect(pairingErrorReasonSchema.options.filter((reason) => !isBridgeReason(reason))).toEqual([]);
  });

  it("holds every failure the client library raises of its own", () => {
    const raised = scan(filesUnder("client", ".ts"), LIBRARY_RAISES);
    expect(raised.length).toBeGreaterThan(0);
    expect(unregistered(raised, (code) => Object.hasOwn(LIBRARY_ERRORS, code) || isBridgeReason(code))).toEqual([]);
  });

  it("holds every HTTP code the docs name, with the status they give it", () => {
    const documented = scan(docs, HTTP_DOCUMENTED);
    expect(documented.length).toBeGreaterThan(20);
    expect(unregistered(documented, isHttpErrorCode)).toEqual([]);
    const wrongStatus = documented.filter(
      (f) => f.status !== undefined && isHttpErrorCode(f.code) && !statusesOf(f.code).includes(f.status),
    );
    expect(wrongStatus.map((f) => `${f.status} ${f.code} (${f.at})`)).toEqual([]);
  });

  it("holds every bridge reason the docs name", () => {
    const documented = scan(["docs/bridge.md", "docs/client.md"], BRIDGE_DOCUMENTED);
    expect(documented.length).toBeGreaterThan(5);
    expect(unregistered(documented, isBridgeReason)).toEqual([]);
  });

  it("raises cursor_expired one way: the server's CursorExpiredError", () => {
    const spelled = serverFiles.filter((file) => readFileSync(join(ROOT, file), "utf8").includes('"cursor_expired"'));
    expect(spelled).toEqual(["server/events/event-store.ts"]);
  });

  it("has the bridge close sockets only with the close-code table's names", () => {
    const literal = scan(filesUnder("bridge", ".ts"), [/\.close\((\d+)/]);
    expect(literal.map((f) => `${f.code} (${f.at})`)).toEqual([]);
  });

  it("gives each bridge reason where it is answered", () => {
    for (const [reason, rule] of Object.entries(BRIDGE_REASONS)) expect(rule.where, reason).not.toBe("");
  });
});
