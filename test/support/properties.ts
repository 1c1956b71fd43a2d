// One place that sizes the generated-case suites (test/properties/). `npm test` runs each property a modest number of
// times; `npm run test:deep` sets PROPERTIES_DEEP=1 and runs every one 20 times as often. A failure prints
// fast-check's shrunk counterexample and its seed; FC_SEED=<seed> replays that very run.
import fc, { type Parameters } from "fast-check";
import { it } from "vitest";

/** How many times more cases the deep run generates. */
export const DEEP_FACTOR = 20;

const deep = process.env.PROPERTIES_DEEP === "1";
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);

/** fast-check settings for a property whose ordinary run is `runs` cases. */
export function propertyRuns<T>(runs: number): Parameters<T> {
  return {
    numRuns: deep ? runs * DEEP_FACTOR : runs,
    ...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}),
  };
}

/** The vitest timeout of a property test whose ordinary run takes well under `ms`: scaled with the run count. */
export function propertyTimeout(ms: number): number {
  return deep ? ms * DEEP_FACTOR : ms;
}

/**
 * One test that asserts `property` (fast-check, sync or async) at its ordinary size of `runs` cases and a vitest
 * timeout of `ms`, both scaled by the deep flag. `params` adds fast-check settings (examples, endOnFailure).
 */
export function itHolds<Ts>(
  name: string,
  property: fc.IRawProperty<Ts>,
  size: { runs: number; ms: number },
  params: Parameters<Ts> = {},
): void {
  it(
    name,
    async () => await fc.assert(property, { ...propertyRuns<Ts>(size.runs), ...params }),
    propertyTimeout(size.ms),
  );
}
