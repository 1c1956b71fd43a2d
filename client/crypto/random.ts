// Random bytes for nonces and call ids, from the platform's CSPRNG (crypto.getRandomValues: browsers, React Native
// polyfills, Node). Each getRandomValues call costs ~13 µs on Node 20 whatever its size, and every sealed relayed
// call needs two small draws (its id, its nonce), so small draws are cut from a pool filled 4 KiB at a time. Every
// byte is handed out once: a draw is a copy of pool bytes not handed out before, and the pool is refilled, never
// rewound.
const POOL_BYTES = 4096;
/** The most getRandomValues fills at once (the Web Crypto limit). */
const MAX_FILL = 65536;

let pool: Uint8Array = new Uint8Array(0);
let taken = 0;

export function randomBytes(length: number): Uint8Array {
  if (length > POOL_BYTES / 4) return fresh(length);
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
  for (let start = 0; start < length; start += MAX_FILL) crypto.getRandomValues(bytes.subarray(start, start + MAX_FILL));
  return bytes;
}
