// Random bytes for nonces, call ids and keys, behind one named seam (docs/security.md "Seams"). The plain default is
// the platform's CSPRNG, one crypto.getRandomValues call per draw (browsers, React Native polyfills, Node).
// `useRandom("pooled")` cuts small draws from a 4 KiB buffer filled by the same CSPRNG, every byte handed out once
// (a draw is a copy of bytes never handed out before; the pool is refilled, never rewound). Node 20 spends a few
// microseconds of setup on each getRandomValues call whatever its size, and a sealed relayed call draws three times;
// the relay benchmark measures the pool against the default in the same run, and the server switches it on
// (server/e2e/end-to-end.ts, docs/benchmarks.md "Sealed relay").
/** What the seam can use: `platform` (the default) or `pooled`. */
export type RandomName = "platform" | "pooled";

const POOL_BYTES = 4096;
/** The most getRandomValues fills at once (the Web Crypto limit). */
const MAX_FILL = 65536;

let pool: Uint8Array = new Uint8Array(0);
let taken = 0;
let active: RandomName = "platform";

export function useRandom(name: RandomName): RandomName {
  return (active = name);
}

export function randomInUse(): RandomName {
  return active;
}

export function randomBytes(length: number): Uint8Array {
  if (active === "platform" || length > POOL_BYTES / 4) return fresh(length);
  if (taken + length > pool.length) {
    pool = fresh(POOL_BYTES);
    taken = 0;
  }
  const bytes = pool.slice(taken, taken + length);
  taken += length;
  return bytes;
}

function fresh(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let start = 0; start < length; start += MAX_FILL)
    crypto.getRandomValues(bytes.subarray(start, start + MAX_FILL));
  return bytes;
}
