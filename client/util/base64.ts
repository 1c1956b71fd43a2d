// Bytes to base64 with what every platform has (btoa: browsers, React Native, Node 20), in chunks so a
// multi-megabyte image never builds an argument list the engine refuses.
const CHUNK = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK));
  }
  return btoa(binary);
}
