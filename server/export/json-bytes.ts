// The bytes of JSON's structure, as the import's two readers of raw JSON bytes (array-scanner.ts over the file,
// element-pieces.ts over one element) compare them.
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;

/** JSON's white space: space, line feed, carriage return, tab. */
export const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
