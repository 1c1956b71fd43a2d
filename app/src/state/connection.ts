// The paired device's live connection: the client library's ChatClient, the device API, and the connection
// state as the app shows it (live, polling, reconnecting, offline, revoked) with the time of the last event.
import { signal } from "@preact/signals";
import { connect, forgetCredentials, loadCredentials, saveCredentials, webStorage, type ChatClient, type ConnectionStatus, type Credentials } from "../../../client/index.ts";
import { WIDE_SCREEN_QUERY } from "./use-wide-screen.ts";

export type ShownState = "connecting" | "live" | "polling" | "reconnecting" | "offline" | "revoked";

export interface Paired {
  credentials: Credentials;
  /** The live connection and (ServerApi) every server call the app makes. */
  client: ChatClient;
}

export const storage = webStorage(localStorage);
export const paired = signal<Paired | undefined>(undefined);
export const shownState = signal<ShownState>("connecting");
/** Date.now() of the last event delivered (or of going live); shown as "n s ago" while not live. */
export const lastEventAt = signal<number | undefined>(undefined);
/** Set when the server forgot this device: the pairing screen says why. */
export const revokedNotice = signal(false);

/** Wide screens use the desktop dismissal rules (SPEC rule 6), phones the mobile ones (rule 5). */
export function isWideScreen(): boolean {
  return matchMedia(WIDE_SCREEN_QUERY).matches;
}

export async function resume(): Promise<boolean> {
  const credentials = await loadCredentials(storage);
  if (!credentials) return false;
  start(credentials);
  return true;
}

export async function adopt(credentials: Credentials): Promise<void> {
  await saveCredentials(storage, credentials);
  revokedNotice.value = false;
  start(credentials);
}

function start(credentials: Credentials): void {
  paired.value?.client.close();
  const client = connect(credentials, { storage, mode: isWideScreen() ? "desktop" : "mobile" });
  let wasLive = false;
  client.status.subscribe((status) => {
    if (status.state === "live") {
      wasLive = true;
      lastEventAt.value = Date.now();
    }
    shownState.value = shownStateOf(status, wasLive);
    // The library forgets the credentials of a revoked (or unknown) device; the app returns to pairing.
    if (status.state === "stopped" && status.reason === "revoked") void forget(true);
  });
  client.on("*", () => (lastEventAt.value = Date.now()));
  shownState.value = "connecting";
  paired.value = { credentials, client };
  client.start();
}

/** Forgets the credentials (a revoked or unknown device, or the user unpairing) and returns to pairing. */
export async function forget(revoked: boolean): Promise<void> {
  paired.value?.client.close();
  paired.value = undefined;
  await forgetCredentials(storage);
  revokedNotice.value = revoked;
  shownState.value = revoked ? "revoked" : "connecting";
}

function shownStateOf(status: ConnectionStatus, wasLive: boolean): ShownState {
  switch (status.state) {
    case "live":
    case "polling":
    case "offline":
      return status.state;
    case "catching_up":
      return wasLive ? "reconnecting" : "connecting";
    case "stopped":
      return status.reason === "revoked" ? "revoked" : "offline";
  }
}
