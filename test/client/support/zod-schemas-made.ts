// How many zod schemas this process has made, for the fresh processes that count them (count-schemas.ts,
// count-export-schemas.ts): zod gives every schema it makes its internals as `_zod`, with one Object.defineProperty
// each, and that call is what is counted. Import this module before anything that loads zod.
let made = 0;
const defineProperty = Object.defineProperty;
Object.defineProperty = function <T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor & ThisType<unknown>) {
  if (key === "_zod") made += 1;
  return defineProperty(target, key, descriptor);
};

/** The zod schemas made since this module was loaded. */
export const schemasMade = (): number => made;
