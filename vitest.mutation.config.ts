// The suites Stryker runs against each mutant of the security-critical files (stryker.config.json): their unit,
// property and loopback tests only. No Chromium, no app build, no process-spawning config suites.
//
// The files are run in groups (scripts/mutate.ts, `npm run mutate`): each group names the files it mutates and the
// fast tests that should notice a broken rule in them, and a run of one group (MUTATION_GROUP=<name>) loads only that
// group's tests. Coverage per test then narrows each mutant to the tests of its group that reach its line. Without the
// grouping every mutant a server's start-up reaches (code run in a `beforeAll`, which Stryker counts as covered by
// every test) ran all twenty loopback suites: hours on two cores. docs/testing.md "Mutation score" has the figures.
import { defineConfig } from "vitest/config";

export interface MutationGroup {
  /** Globs of the files Stryker mutates in this group (each also in stryker.config.json "mutate"). */
  mutate: string[];
  /** The test files that judge those mutants. */
  tests: string[];
}

export const MUTATION_GROUPS: Record<string, MutationGroup> = {
  // authentication, tokens and the caller, judged by unit tests that call them directly (the relay secret's
  // comparison is Authenticator.relayedDevice: test/auth/authenticator.test.ts "a relay pass"); the token hash and its
  // constant-time comparison live in the wire library, shared with the bridge
  auth: {
    mutate: ["server/auth/*.ts", "client/wire/crypto/token-hash.ts"],
    tests: [
      "test/auth/tokens.test.ts",
      "test/auth/authenticator.test.ts",
      "test/auth/caller.test.ts",
      "test/auth/credential-files.test.ts",
    ],
  },
  // pairing codes, the pairing service and its public URLs, each called directly
  pairing: {
    mutate: ["server/pairing/*.ts"],
    tests: ["test/pairing/codes.test.ts", "test/pairing/pairing-service.test.ts", "test/pairing/urls.test.ts"],
  },
  // the bridge's API relay and its limits, each called directly (test/relay/relay-attacks.test.ts drives the same over
  // a loopback bridge in npm test: a bridge, a server and a backend per test, seconds for each mutant)
  relay: {
    mutate: ["bridge/relay/*.ts"],
    tests: ["test/relay/relay-limits.test.ts", "test/relay/api-relay-unit.test.ts"],
  },
  // end-to-end sealing and key rotation: keys, audiences, the replay guard and the sealed calls, each called directly
  // (test/e2e/tampering.test.ts and sealed-answer.test.ts drive the sealed calls over a real stack in npm test)
  e2e: {
    mutate: ["server/e2e/*.ts"],
    tests: [
      "test/e2e/keys-and-audiences.test.ts",
      "test/e2e/replay-guard-bounds.test.ts",
      "test/e2e/replay-guard.test.ts",
      "test/e2e/sealed-calls-unit.test.ts",
    ],
  },
  // the approvals of MCP tool calls, over one runtime's notifications and a hand-moved clock (no MCP server, no
  // model). Not test/properties/approvals.property.test.ts: it restarts servers inside each case, and once in
  // Stryker's instrumented dry run it failed where plain runs of the same seed pass.
  approvals: {
    mutate: ["server/mcp/approvals.ts"],
    tests: ["test/mcp/approvals-unit.test.ts"],
  },
  // the respond route: who may answer an interaction, and only while its request runs
  interactions: {
    mutate: ["server/http/routes/interactions.ts"],
    tests: ["test/notifications/respond-ended-request.test.ts", "test/notifications/respond-rules.test.ts"],
  },
  // people's visibility: the access rules, the guard and a chat's audience, each called directly
  // (test/people/guard-rules.test.ts and people-routes.test.ts drive them through a household's routes in npm test)
  people: {
    mutate: ["server/people/access.ts", "server/people/chat-guard.ts", "server/people/chat-audiences.ts"],
    tests: ["test/people/access.test.ts", "test/people/chat-guard-unit.test.ts"],
  },
};

/**
 * The tests of the group MUTATION_GROUP names, or of every group when none is named. MUTATION_TESTS (comma-separated
 * test files) replaces them: a trial of one file's mutants against some tests.
 */
export function mutationSuites(group: string | undefined): string[] {
  const only = process.env.MUTATION_TESTS;
  if (only !== undefined && only !== "") return only.split(",");
  if (group === undefined || group === "") return [...new Set(Object.values(MUTATION_GROUPS).flatMap((g) => g.tests))];
  const chosen = MUTATION_GROUPS[group];
  if (chosen === undefined) throw new Error(`MUTATION_GROUP "${group}" is not one of ${Object.keys(MUTATION_GROUPS)}`);
  return chosen.tests;
}

export default defineConfig({
  test: {
    include: mutationSuites(process.env.MUTATION_GROUP),
    // Stryker's runner runs one file at a time in each of its workers (its concurrency), in threads, isolated
    // (vitest's default). isolate false was tried on 2026-11-29 under a load of 30 to 40: no gain could be measured,
    // and timeouts were as frequent isolated, so the default stays (docs/testing.md "Mutation score").
    pool: "threads",
    maxWorkers: 1,
    // A mutant that leaves a wait unanswered (an approval never settled, a call never answered) fails its test here,
    // in seconds, as killed: under Stryker's own timeout (timeoutMS 10 s plus the dry run's time), which would count
    // it a timeout and restart the worker. Every test of the groups takes well under a second on a quiet machine.
    testTimeout: 8_000,
    hookTimeout: 30_000,
  },
});
