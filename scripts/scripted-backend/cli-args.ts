// The scripted backend CLI's arguments: `[port] [dialect] [--delay-ms N]` (main.ts).

/** Between pieces of four characters: about five seconds for the CLI's reply, time enough to press Stop. */
export const DEFAULT_DELAY_MS = 40;

export interface CliArgs {
  port: number;
  dialect: string;
  delayMs: number;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const positional: string[] = [];
  let delayMs = DEFAULT_DELAY_MS;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--delay-ms=(.*)$/.exec(arg);
    if (arg !== "--delay-ms" && !inline) {
      positional.push(arg);
      continue;
    }
    const text = inline ? inline[1]! : (argv[++i] ?? "");
    const value = Number(text);
    if (text === "" || !Number.isFinite(value) || value < 0)
      throw new Error(`--delay-ms: "${text}" is not a number of milliseconds`);
    delayMs = value;
  }
  return { port: Number(positional[0] ?? 8089), dialect: positional[1] ?? "openai", delayMs };
}
