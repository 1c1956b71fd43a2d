// Local trials: `node --import tsx scripts/scripted-backend/main.ts [port] [dialect]` listens on 127.0.0.1 and
// answers every chat completion with a friendly streamed reply (or JSON when stream is false is not
// distinguished: configure stream true). Point a provider's base_url at the printed URL.
import { DIALECTS, dialectStream, type Dialect } from "./dialects.ts";
import { startScriptedBackend } from "./server.ts";

const port = Number(process.argv[2] ?? 8089);
const dialect = (process.argv[3] ?? "openai") as Dialect;
if (!DIALECTS.includes(dialect)) {
  console.error(`unknown dialect "${dialect}"; one of ${DIALECTS.join(", ")}`);
  process.exit(1);
}
const reply = {
  content: "Hello! I am the scripted backend. Every answer I give is this one, streamed a few characters at a time.",
  reasoning: "The user said something; a friendly greeting fits.",
  usage: { prompt_tokens: 42, completion_tokens: 24, total_tokens: 66, prompt_tokens_details: { cached_tokens: 0 } },
};
const backend = await startScriptedBackend({ port, fallback: { ...dialectStream(dialect, reply), writeSize: undefined } });
console.log(`scripted backend (${dialect}) listening: base_url ${backend.url}`);
const stop = () => void backend.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
