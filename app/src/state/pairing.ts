// Pairing this browser: from a link (the QR code's pair_url or the link `npm start` prints) in one step, or from a
// typed code. The link's query is read by the library's parsePairUrl; what the link does not say (the bridge, for a
// printed link) comes from /app-config.json, never the encryption key. A code without a key is confirmed by the
// server's fingerprint before the app goes on (docs/security.md).
import { signal, type ReadonlySignal } from "@preact/signals";
import { z } from "zod";
import {
  parsePairUrl,
  serverFingerprint,
  type AppConfig,
  type Credentials,
  type PairLink,
} from "../../../client/index.ts";
import { defaultDeviceName, guessedBridgeUrl } from "./app-config.ts";
import type { Connection } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { describeError, linkFailureText } from "./errors.ts";
import { newId } from "./ids.ts";
import { readStored, writeStored } from "./local-store.ts";
import type { Router } from "./router.ts";

const DEVICE_NAME_KEY = "chat-relay.device-name";
/** This browser's own short tag, made once: two phones of one kind get two names ("Chrome on Android (3f9c)"). */
const DEVICE_TAG_KEY = "chat-relay.device-tag";
const DEVICE_TAG = z.string().regex(/^[0-9a-f]{4}$/);

export type PairingState =
  | { phase: "form"; problem?: string }
  | { phase: "pairing"; fromLink: boolean }
  /** Paired by typed code (no key to prove the answer): the server key's fingerprint, to compare. */
  | { phase: "fingerprint"; credentials: Credentials; fingerprint: string };

export interface Pairing {
  readonly state: ReadonlySignal<PairingState>;
  /** The device name this browser pairs under (the last one used, else one from the browser). */
  deviceName(): string;
  /** The bridge address the typed-code form starts with: the server's, else a guess. */
  bridgeAddress(): Promise<string>;
  /** Pairs from a link's query (`code=..&bridge=..&key=..`): one step, no typing. */
  pairWithLink(query: string): Promise<void>;
  /** Pairs from the form; a pasted link in the code field carries its own code, bridge and key. */
  pairWithCode(input: { code: string; bridge: string; deviceName: string }): Promise<void>;
  /** After comparing the fingerprint. */
  confirm(): Promise<void>;
}

export function createPairing(
  env: AppEnv,
  connection: Connection,
  router: Router,
  appConfig: () => Promise<AppConfig | undefined>,
): Pairing {
  const state = signal<PairingState>({ phase: "form" });
  const deviceName = () =>
    readStored(env, DEVICE_NAME_KEY, z.string().min(1).max(100)) ?? `${defaultDeviceName(env.userAgent)} (${tag()})`;
  const tag = () => {
    const kept = readStored(env, DEVICE_TAG_KEY, DEVICE_TAG);
    if (kept) return kept;
    const made = newId("tag").slice(-4);
    writeStored(env, DEVICE_TAG_KEY, made);
    return made;
  };

  const finish = async (credentials: Credentials) => {
    await connection.adopt(credentials);
    state.value = { phase: "form" };
    router.navigate({ name: "new_chat" }, { replace: true });
  };
  const run = async (link: PairLink, name: string, fromLink: boolean) => {
    state.value = { phase: "pairing", fromLink };
    try {
      // Naming the server lets the bridge answer a code made before the server's first link as retryable; only the
      // server this page came from is known, so only when the code goes to its bridge.
      const config = await appConfig().catch(() => undefined);
      const serverId = config && config.bridge_url === link.bridge ? config.server_id : undefined;
      const credentials = await env.pair({
        bridgeUrl: link.bridge,
        code: link.code.toUpperCase(),
        deviceName: name,
        serverKey: link.key,
        ...(serverId ? { serverId } : {}),
      });
      writeStored(env, DEVICE_NAME_KEY, name);
      const fingerprint = link.key === undefined ? await serverFingerprint(credentials) : undefined;
      if (fingerprint) state.value = { phase: "fingerprint", credentials, fingerprint };
      else await finish(credentials);
    } catch (error) {
      state.value = { phase: "form", problem: fromLink ? linkFailureText(error) : describeError(error) };
    }
  };

  return {
    state,
    deviceName,
    async bridgeAddress() {
      return (await appConfig())?.bridge_url ?? guessedBridgeUrl(env);
    },
    async pairWithLink(query) {
      const params = new URLSearchParams(query);
      // A link's own parameters win; a printed link may leave out the bridge, which the server then names.
      if (!params.has("bridge")) {
        const bridge = (await appConfig())?.bridge_url;
        if (bridge) params.set("bridge", bridge);
      }
      const link = parsePairUrl(`#/pair?${params.toString()}`);
      if (!link) {
        state.value = {
          phase: "form",
          problem: "This pairing link is incomplete (no code, or no bridge address). Type the code below instead.",
        };
        return;
      }
      await run(link, deviceName(), true);
    },
    async pairWithCode({ code, bridge, deviceName: name }) {
      const pasted = parsePairUrl(code.trim());
      const link: PairLink = pasted ?? { code: code.trim(), bridge: bridge.trim() };
      await run(link, name.trim() || deviceName(), pasted !== undefined);
    },
    async confirm() {
      const current = state.value;
      if (current.phase === "fingerprint") await finish(current.credentials);
    },
  };
}
