// A size this device's layout measured, kept in localStorage for its next start (docs/app.md "Start-up", SU13,
// SU16): a first render that places things where they will measure does not render and lay out again before its
// first paint. Sizes follow the device (its fonts, text size, window), so they are learnt, not guessed.
import { z } from "zod";
import { pageStorage, readStored, writeStored } from "./local-store.ts";

export interface KeptSize {
  /** The size an earlier start kept, if it reads as one (read once, then what this page kept). */
  read(): number | undefined;
  /** Keeps `size` (px, whole) for the next start, when it is in range and changed. */
  keep(size: number): void;
}

/** The size kept under `key`; a value outside [min, max] (0 from a page not laid out) is neither kept nor read. */
export function keptSize(key: string, min: number, max: number): KeptSize {
  let kept: number | undefined;
  let read = false;
  return {
    read() {
      if (read) return kept;
      read = true;
      const store = pageStorage();
      kept ??= store && readStored(store, key, z.number().int().min(min).max(max));
      return kept;
    },
    keep(size) {
      if (size === kept || !(Number.isInteger(size) && size >= min && size <= max)) return;
      kept = size;
      const store = pageStorage();
      if (store) writeStored(store, key, size);
    },
  };
}
