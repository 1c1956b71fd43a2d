// The crypto primitives on demand (docs/client.md "End-to-end encryption"): a browser fetches @noble's code only when a device
// pairs end to end or connects with end-to-end credentials, so a plain device and the first paint carry none of it.
// The library waits for this before it opens any sealed event or seals any relayed call.
export type CryptoModule = typeof import("./index.ts");

let loading: Promise<CryptoModule> | undefined;

/** The crypto module, loaded once; a failed load (an offline chunk fetch) is tried again on the next call. */
export function loadCrypto(): Promise<CryptoModule> {
  loading ??= import("./index.ts").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
