// A part of the app fetched on first need (a lazy chunk: the markdown renderer, the documents controls) and kept once
// in: one fetch at a time, and a failed one (offline before the chunk was ever cached) is tried again by the next need.

export interface ChunkLoader<T> {
  /** The module, fetched on the first call; the same promise while it is on its way. */
  load(): Promise<T>;
  /** The module once it has arrived, for a render that must not wait. */
  readonly loaded: T | undefined;
}

export function chunkLoader<T>(fetchChunk: () => Promise<T>): ChunkLoader<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load: () =>
      (loading ??= fetchChunk().then(
        (module) => (loaded = module),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      )),
    get loaded() {
      return loaded;
    },
  };
}
