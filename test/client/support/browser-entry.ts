// What the insecure-origin test loads in Chromium: the library's public entry, bundled, on `window.lib`.
import * as lib from "../../../client/index.ts";

(globalThis as { lib?: typeof lib }).lib = lib;
