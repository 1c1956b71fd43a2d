// `npm start`: the server and the bridge, two processes, one command, kept up (docs/security.md "npm start"). Each
// child runs in its own process group and is restarted with backoff when it exits; the other keeps serving.
// SIGINT/SIGTERM stop both (and whatever they started). Once the server first answers, the first-run link is offered
// (scripts/start/first-run.ts) while no device is paired, or always with `npm start -- --pair`; a restart offers none.
import { fileURLToPath } from "node:url";
import type { ListeningMessage } from "../server/main.ts";
import { ensureAppBuilt } from "./build-app.ts";
import { SupervisedChild, type ChildSpec } from "./start/supervised-child.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const force = process.argv.slice(2).includes("--pair");
const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

// The companion app is served at the server's /: build it first when app/dist is missing or older than app/.
if (await ensureAppBuilt()) say("companion app built (app/dist)");

let exitCode = 0;
const guard = ["--import", "tsx", "--import", "./scripts/start/orphan-guard.ts"];
const stopAllOnFatal = (code: number) => {
  exitCode = code;
  void stopAll("SIGTERM");
};

/** One of the two processes (its `<name>/main.ts`), run by tsx from the repository's root under the orphan guard. */
const supervised = (name: ChildSpec["name"], onMessage?: ChildSpec["onMessage"]) =>
  new SupervisedChild({
    name,
    args: [...guard, `${name}/main.ts`],
    cwd: root,
    env: process.env,
    say,
    onFatal: stopAllOnFatal,
    onMessage,
  });

const server = supervised("server", (message, firstStart) => {
  if (!firstStart || !isListening(message)) return;
  offerLink(message).catch((error: unknown) =>
    say(`no pairing link: ${error instanceof Error ? error.message : String(error)}`),
  );
});
const bridge = supervised("bridge");
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
// Loaded while the children start: nothing of it is needed before the server listens. The children read (and refuse)
// the environment themselves; a bad value is their exit code 2, which stops everything.
const firstRunParts = Promise.all([import("./start/first-run.ts"), import("../server/config/load.ts")]);

async function offerLink(listening: ListeningMessage): Promise<void> {
  const [{ offerFirstRunLink }, { readEnvironment }] = await firstRunParts;
  const env = readEnvironment();
  await offerFirstRunLink({
    dataDir: env.dataDir,
    serverUrl: listening.url,
    localBridgeUrl: env.bridgePublicUrl ?? env.bridgeUrl,
    force,
    terminal: process.stdout.isTTY === true,
    write: (text) => process.stdout.write(text),
  });
}

function isListening(message: unknown): message is ListeningMessage {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as { type?: unknown }).type === "server_listening" &&
    typeof (message as { url?: unknown }).url === "string"
  );
}
