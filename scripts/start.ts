// `npm start`: the server and the bridge, two processes, one command, kept up (docs/security.md "npm start"). Each
// child runs in its own process group and is restarted with backoff when it exits; the other keeps serving.
// SIGINT/SIGTERM stop both (and whatever they started). Once the server first answers, the first-run link is offered
// (scripts/start/first-run.ts) while no device is paired, or always with `npm start -- --pair`; a restart offers none.
import { fileURLToPath } from "node:url";
import type { ListeningMessage } from "../server/main.ts";
import { readEnvironment } from "../server/config/load.ts";
import { ensureAppBuilt } from "./build-app.ts";
import { offerFirstRunLink } from "./start/first-run.ts";
import { SupervisedChild } from "./start/supervised-child.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const force = process.argv.slice(2).includes("--pair");
const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

// Read as the server will: a bad value stops here with the same one line.
let env;
try {
  env = readEnvironment();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}

// The companion app is served at the server's /: build it first when app/dist is missing or older than app/.
if (await ensureAppBuilt()) say("companion app built (app/dist)");

let exitCode = 0;
const guard = ["--import", "tsx", "--import", "./scripts/start/orphan-guard.ts"];
const childEnv = process.env;
const stopAllOnFatal = (code: number) => {
  exitCode = code;
  void stopAll("SIGTERM");
};

const server = new SupervisedChild({
  name: "server",
  args: [...guard, "server/main.ts"],
  cwd: root,
  env: childEnv,
  say,
  onFatal: stopAllOnFatal,
  onMessage: (message, firstStart) => {
    if (!firstStart || !isListening(message)) return;
    offerFirstRunLink({
      dataDir: env.dataDir,
      serverUrl: message.url,
      localBridgeUrl: env.bridgePublicUrl ?? env.bridgeUrl,
      force,
      terminal: process.stdout.isTTY === true,
      write: (text) => process.stdout.write(text),
    }).catch((error: unknown) => say(`no pairing link: ${error instanceof Error ? error.message : String(error)}`));
  },
});
const bridge = new SupervisedChild({ name: "bridge", args: [...guard, "bridge/main.ts"], cwd: root, env: childEnv, say, onFatal: stopAllOnFatal });
const children = [server, bridge];

let stopping: Promise<void> | undefined;
function stopAll(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    // A second Ctrl-C: no more waiting.
    for (const child of children) child.kill();
    return stopping;
  }
  return (stopping = Promise.all(children.map((child) => child.stop(signal))).then(() => process.exit(exitCode)));
}

process.on("SIGINT", () => void stopAll("SIGINT"));
process.on("SIGTERM", () => void stopAll("SIGTERM"));
for (const child of children) child.start();

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "server_listening" && typeof (message as { url?: unknown }).url === "string";
}
