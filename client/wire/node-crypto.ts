// Node's crypto module, where the library runs on Node (the server, the bridge, Node clients): OpenSSL's primitives,
// several times cheaper per call than the portable audited JavaScript. Undefined in browsers and React Native, which
// keep @noble/*. Reached through process.getBuiltinModule (Node ≥ 20.16), never imported, so browser bundles see no
// import of it; looked up on first use, not at module load, so bundlers count no side effect here.
export type NodeCrypto = typeof import("node:crypto");

let found: NodeCrypto | null | undefined;

export function nodeCrypto(): NodeCrypto | undefined {
  if (found === undefined) {
    const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    found = (getBuiltin?.("node:crypto") as NodeCrypto | undefined) ?? null;
  }
  return found ?? undefined;
}
