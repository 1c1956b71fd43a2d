// The words of the history benchmarks' messages and queries (scripts/bench/history-server.ts writes them,
// history.ts and history-people.ts search for them): a fixed vocabulary of pseudo-words and a seeded PRNG, so every
// run stores the same text and asks the same queries.
import { seededRandom } from "../../test/support/seeded-random.ts";

export const VOCABULARY = 5000;

const SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "va", "zu", "shi", "ren", "gor", "bel", "tin"];

/** The pseudo-word of rank `n` (0 ≤ n < VOCABULARY), at least two syllables long. */
export function wordOf(n: number): string {
  let word = "";
  for (let rest = n + SYLLABLES.length; rest > 0; rest = Math.floor(rest / SYLLABLES.length))
    word += SYLLABLES[rest % SYLLABLES.length];
  return word;
}

/** `count` queries of one or two words of the vocabulary. */
export function queriesOf(count: number, seed = 11): string[] {
  const random = seededRandom(seed);
  const word = () => wordOf(Math.floor(random() * VOCABULARY));
  return Array.from({ length: count }, () => (random() < 0.5 ? word() : `${word()} ${word()}`));
}
