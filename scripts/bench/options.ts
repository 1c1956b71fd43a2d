// A benchmark's command-line options in one place: each `--name value` with its default, read with node's parseArgs
// and handed back typed by its default (a number default reads as a number, a string one as a string), so each
// benchmark names its options once instead of writing the parseArgs block and a Number() per option.
import { parseArgs } from "node:util";

type Read<T> = { [K in keyof T]: T[K] extends number ? number : string };

/** The options of this run: `defaults` names each option and its default. */
export function benchOptions<const T extends Record<string, number | string>>(defaults: T): Read<T> {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, { type: "string" as const, default: String(value) }]),
  );
  const { values } = parseArgs({ options });
  const read = Object.entries(defaults).map(([name, value]) => {
    const given = String(values[name]);
    return [name, typeof value === "number" ? Number(given) : given];
  });
  return Object.fromEntries(read) as Read<T>;
}
