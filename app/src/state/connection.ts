// The paired device's live connection: the client library's ChatClient (every server call the app makes), the
// badge word (connection-status.ts), the time of the last event, and why the app is on the pairing screen.
import { computed, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import {
  NetworkError,
  forgetCredentials,
  loadCredentials,
  saveCredentials,
  webStorage,
  type ChatClient,
  type ConnectionStatus,
  type Credentials,
  type CursorStore,
  type StorageAdapter,
} from "../../../client/index.ts";
import { badgeOf, isServerUnavailable, type Badge } from "./connection-status.ts";
import type { AppEnv } from "./env.ts";

/** How often a server found off the bridge is asked again. */
const SERVER_PROBE_MS = 5_000;

export interface Paired {
  credentials: Credentials;
  client: ChatClient;
}

export interface Connection {
  readonly paired: ReadonlySignal<Paired | undefined>;
  readonly badge: ReadonlySignal<Badge>;
  /** env.now() of the last event delivered (or of going live); the badge's tooltip says how long ago. */
  readonly lastEventAt: ReadonlySignal<number | undefined>;
  /** Set when the server forgot this device: the pairing screen says why. */
  readonly revokedNotice: ReadonlySignal<boolean>;
  readonly storage: StorageAdapter;
  resume(): Promise<boolean>;
  adopt(credentials: Credentials): Promise<void>;
  /** Forgets the credentials (revoked, or unpaired on purpose); `onForget` wipes what the device kept. */
  forget(revoked: boolean): Promise<void>;
  /** Every call's outcome tunes the badge: a relay `server_unavailable` means the server is off the bridge. */
  noteCall(error?: unknown): void;
  /**
   * After a call failed on the network: asks the server once more with a read (which the library may relay through
   * the bridge), so the badge, and the sentence a screen shows next, tell "server offline" from "no connection".
   */
  diagnose(error: unknown): Promise<void>;
  dispose(): void;
}

/** `cursorStore`: where the client keeps its event cursor beside the cached list (list-cursor.ts). */
export function createConnection(env: AppEnv, onForget: () => Promise<void>, cursorStore?: CursorStore): Connection {
  const storage = webStorage(env.storage);
  const paired = signal<Paired | undefined>(undefined);
  const status = signal<ConnectionStatus>({ state: "catching_up" });
  const online = signal(env.isOnline());
  const serverUnreachable = signal(false);
  const lastEventAt = signal<number | undefined>(undefined);
  const revokedNotice = signal(false);
  const offOnline = env.onOnlineChange(() => (online.value = env.isOnline()));
  let offClient: (() => void) | undefined;

  const start = (credentials: Credentials) => {
    paired.value?.client.close();
    offClient?.();
    const mode = env.isWide() ? "desktop" : "mobile";
    const client = env.connect(credentials, { ...env.connectOptions, storage, mode, cursorStore });
    offClient = watchClient(env, client, { status, lastEventAt, serverUnreachable }, () =>
      connection.forget(true).catch((error: unknown) => env.report("forgetting a revoked device failed", error)),
    );
    paired.value = { credentials, client };
    client.start();
    status.value = client.status.get();
  };

  const probe = serverProbe(
    () => paired.value?.client,
    serverUnreachable,
    (error) => connection.noteCall(error),
  );

  const connection: Connection = {
    paired,
    badge: computed(() => badgeOf(status.value, { online: online.value, serverUnreachable: serverUnreachable.value })),
    lastEventAt,
    revokedNotice,
    storage,
    async resume() {
      const credentials = await loadCredentials(storage);
      if (!credentials) return false;
      start(credentials);
      return true;
    },
    async adopt(credentials) {
      await saveCredentials(storage, credentials);
      revokedNotice.value = false;
      start(credentials);
    },
    async forget(revoked) {
      if (revoked) revokedNotice.value = true;
      if (!paired.value) return;
      offClient?.();
      paired.value.client.close();
      paired.value = undefined;
      status.value = { state: "catching_up" };
      await forgetCredentials(storage);
      await onForget();
    },
    noteCall(error) {
      serverUnreachable.value = error !== undefined && isServerUnavailable(error);
      if (serverUnreachable.value) probe.start();
    },
    async diagnose(error) {
      connection.noteCall(error);
      const client = paired.value?.client;
      if (!client || !(error instanceof NetworkError) || isServerUnavailable(error)) return;
      await client.listAgents().then(
        () => connection.noteCall(),
        (again: unknown) => connection.noteCall(again),
      );
    },
    dispose() {
      probe.stop();
      offOnline();
      offClient?.();
      paired.value?.client.close();
    },
  };
  return connection;
}

/** Follows a client's status and events into the badge's facts; returns the function that stops. */
function watchClient(
  env: AppEnv,
  client: ChatClient,
  facts: {
    status: Signal<ConnectionStatus>;
    lastEventAt: Signal<number | undefined>;
    serverUnreachable: Signal<boolean>;
  },
  onRevoked: () => void,
): () => void {
  const offStatus = client.status.subscribe((next) => {
    if (next.state === "live") facts.lastEventAt.value = env.now();
    facts.status.value = next;
    // The library forgets the credentials of a revoked (or unknown) device; the app wipes and returns to pairing.
    if (next.state === "stopped" && next.reason === "revoked") onRevoked();
  });
  const offEvents = client.on("*", () => {
    facts.lastEventAt.value = env.now();
    facts.serverUnreachable.value = false;
  });
  return () => (offStatus(), offEvents());
}

/**
 * While a call says the server is off the bridge, asks it again now and then: the badge leaves "Server offline" as
 * soon as a call gets through (today's library does not report the server's return itself).
 */
function serverProbe(
  client: () => ChatClient | undefined,
  serverUnreachable: Signal<boolean>,
  noteCall: (error: unknown) => void,
) {
  let probe: ReturnType<typeof setTimeout> | undefined;
  return {
    start() {
      if (probe !== undefined) return;
      probe = setTimeout(() => {
        probe = undefined;
        const current = client();
        if (!current || !serverUnreachable.value) return;
        current.listAgents().then(() => (serverUnreachable.value = false), noteCall);
      }, SERVER_PROBE_MS);
    },
    stop: () => clearTimeout(probe),
  };
}
