// A screen's one read when it opens, done again when `key` changes (another paired device's client): what it loaded,
// or the sentence saying why it could not. An answer that arrives after the screen closed or the key changed is
// dropped, so it never lands on a screen that moved on. No key (not paired): nothing is read.
import { useEffect, useState } from "preact/hooks";

export interface Loading<T> {
  /** Undefined until the first answer. */
  loaded: T | undefined;
  /** Why the last read failed; cleared by the next one that succeeds. */
  problem: string | undefined;
}

export function useLoad<K, T>(
  key: K | undefined,
  load: (key: K) => Promise<T>,
  failure: (error: unknown) => string,
): Loading<T> {
  const [loaded, setLoaded] = useState<T | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    if (key === undefined) return;
    let live = true;
    load(key).then(
      (value) => live && (setLoaded(() => value), setProblem(undefined)),
      (error: unknown) => live && setProblem(failure(error)),
    );
    return () => void (live = false);
  }, [key]);
  return { loaded, problem };
}
