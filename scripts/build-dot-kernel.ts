// Builds server/documents/dot-kernel-wasm.ts, the WebAssembly of server/documents/dot-kernel.wat, with wabt (a
// development dependency: the server only instantiates the bytes). test/documents/dot-kernel.test.ts fails when the
// committed bytes are not those of the source. Run: node --import tsx scripts/build-dot-kernel.ts
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { kernelModuleSource, wasmOfKernel } from "./dot-kernel-source.ts";

const target = fileURLToPath(new URL("../server/documents/dot-kernel-wasm.ts", import.meta.url));
const wat = readFileSync(fileURLToPath(new URL("../server/documents/dot-kernel.wat", import.meta.url)), "utf8");
writeFileSync(target, kernelModuleSource(await wasmOfKernel(wat)));
console.log(`wrote ${target}`);
