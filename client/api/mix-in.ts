// Puts groups of methods on one class (ServerApi's route groups, calls/): each group's own methods are copied onto
// the target's prototype, as the TypeScript handbook's mixins do; the target's interface declares them.

type AnyClass = abstract new (...args: never[]) => object;

/** Copies each group's own methods onto `target.prototype`; a name that two groups (or the target) define throws. */
export function mixIn(target: AnyClass, groups: readonly AnyClass[]): void {
  for (const group of groups) {
    for (const name of Object.getOwnPropertyNames(group.prototype)) {
      if (name === "constructor") continue;
      if (Object.hasOwn(target.prototype, name)) throw new Error(`${target.name}: ${name} is defined twice`);
      Object.defineProperty(target.prototype, name, Object.getOwnPropertyDescriptor(group.prototype, name)!);
    }
  }
}
