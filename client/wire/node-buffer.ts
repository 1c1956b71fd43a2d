// Node's Buffer, where the library runs on Node (the server, Node clients): its native encoders are several times
// faster than the portable code. Undefined in browsers and React Native, which take the portable path. Looked up on
// globalThis, never imported, so browser bundles carry no Buffer polyfill.
export interface NodeBuffer {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: string): string };
  /** A copy of `bytes` (cut from Node's pool when small). */
  from(bytes: Uint8Array): { toString(encoding: string): string };
  from(text: string, encoding: "base64" | "base64url" | "utf8"): Uint8Array;
}

export const nodeBuffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;
