// phoenix (the official Phoenix Channels client) on demand: a browser fetches it when a device first opens its socket
// to the bridge or pairs, so the app's first paint does not carry it (docs/app.md "Start-up", SU8). Once in, it is
// handed out synchronously, so a socket opened after that opens at once, as with a static import.
export type PhoenixModule = typeof import("phoenix");

let loading: Promise<PhoenixModule> | undefined;
let loaded: PhoenixModule | undefined;

/** The phoenix module, loaded once; a failed load (an offline chunk fetch) is tried again on the next call. */
export function loadPhoenix(): Promise<PhoenixModule> {
  loading ??= import("phoenix").then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The phoenix module if it has been loaded, else undefined (then loadPhoenix() fetches it). */
export function loadedPhoenix(): PhoenixModule | undefined {
  return loaded;
}
