// Local trials: `node --import tsx scripts/scripted-backend/main.ts [port] [dialect] [--delay-ms N]` listens on
// 127.0.0.1 and answers every chat completion with a friendly streamed reply (configure stream true). The reply is
// paced, N ms between pieces of four characters (default 40, about five seconds in all), so a person sees it stream
// and can press Stop; `--delay-ms 0` sends it in one burst. Point a provider's base_url at the printed URL.
import { DIALECTS, dialectStream, type Dialect } from "./dialects.ts";
import { parseCliArgs } from "./cli-args.ts";
import { startScriptedBackend } from "./server.ts";

let args;
try {
  args = parseCliArgs(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const dialect = args.dialect as Dialect;
if (!DIALECTS.includes(dialect)) {
  console.error(`unknown dialect "${dialect}"; one of ${DIALECTS.join(", ")}`);
  process.exit(1);
}
const reply = {
  content:
    "Hello! I am the scripted backend, a stand-in for a model server. Every answer I give is this one, streamed a few " +
    "characters at a time so you can watch it arrive. Press Stop while I am talking to see how an interrupted reply is " +
    "kept: the words already shown stay, marked as stopped. Point a provider's base_url at a real model server to chat.",
  reasoning: "The user said something; a friendly greeting fits.",
  usage: { prompt_tokens: 42, completion_tokens: 80, total_tokens: 122, prompt_tokens_details: { cached_tokens: 0 } },
};
const backend = await startScriptedBackend({
  port: args.port,
  fallback: { ...dialectStream(dialect, reply), writeSize: undefined, delayMs: args.delayMs },
});
console.log(`scripted backend (${dialect}, ${args.delayMs} ms between pieces) listening: base_url ${backend.url}`);
const stop = () => void backend.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
