// "Notifications on this device": turns Web Push on or off for this browser (docs/push.md "The app"). The browser's
// permission is asked only when the switch is tapped. It says plainly why it cannot work when that is so: the
// permission was refused, the page is not a secure context (plain http: on a LAN), the browser has no Push API
// (an iPhone or iPad only has it for an app added to the Home Screen), or the server has push turned off.
// Self-contained: give it the paired client (anything with ServerApi's push methods), e.g. paired.value.client.
import { useEffect, useState } from "preact/hooks";
import { ResponseError, type PushSubscriptionJson, type ServerApi } from "../../../client/index.ts";

export type PushState =
  "checking" | "insecure" | "ios_home_screen" | "unsupported" | "server_off" | "denied" | "off" | "on";

type PushApi = Pick<ServerApi, "pushKey" | "subscribePush" | "unsubscribePush" | "pushPreview" | "setPushPreview">;

const EXPLANATIONS: Partial<Record<PushState, string>> = {
  insecure:
    "Notifications need a secure address (https: or this computer). This app was opened over plain http:, so the browser offers no push.",
  ios_home_screen:
    "On iPhone and iPad, notifications work only in the app added to the Home Screen: tap Share, then Add to Home Screen, and open it from there.",
  unsupported: "This browser cannot receive push notifications.",
  server_off: "This server does not send notifications (push is not configured on it).",
  denied: "Notifications are blocked for this site. Allow them in the browser's site settings, then come back.",
};

/** What the browser allows before anything is asked. */
export function browserPushState(): PushState | undefined {
  if (!globalThis.isSecureContext) return "insecure";
  const hasPush = "serviceWorker" in navigator && "PushManager" in globalThis && "Notification" in globalThis;
  if (!hasPush) return /iPhone|iPad|iPod/.test(navigator.userAgent) ? "ios_home_screen" : "unsupported";
  if (Notification.permission === "denied") return "denied";
  return undefined;
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

async function readState(client: PushApi): Promise<PushState> {
  const blocked = browserPushState();
  if (blocked) return blocked;
  try {
    await client.pushKey();
  } catch (error) {
    if (error instanceof ResponseError && error.status === 404) return "server_off";
    throw error;
  }
  return Notification.permission === "granted" && (await currentSubscription()) ? "on" : "off";
}

async function turnOn(client: PushApi): Promise<PushState> {
  // Asked here, on the tap, never before: a browser may refuse to ask again after an unprompted request.
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";
  const public_key = await client.pushKey();
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: public_key,
  });
  await client.subscribePush(subscription.toJSON() as PushSubscriptionJson);
  return "on";
}

async function turnOff(client: PushApi): Promise<PushState> {
  const subscription = await currentSubscription();
  if (subscription) {
    await client.unsubscribePush(subscription.endpoint);
    await subscription.unsubscribe();
  }
  return "off";
}

export function NotificationsToggle({ client }: { client: PushApi }) {
  const [state, setState] = useState<PushState>("checking");
  const [preview, setPreview] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void run(async () => {
      const next = await readState(client);
      setState(next);
      if (next === "on") setPreview(await client.pushPreview());
    });
  }, [client]);

  const explanation = EXPLANATIONS[state];
  const usable = state === "on" || state === "off";
  const toggle = () => run(async () => setState(state === "on" ? await turnOff(client) : await turnOn(client)));
  const changePreview = (value: boolean) => run(async () => setPreview(await client.setPushPreview(value)));

  return (
    <div class="notifications-toggle">
      <button
        type="button"
        role="switch"
        aria-checked={state === "on"}
        disabled={!usable || busy}
        onClick={() => void toggle()}
      >
        Notifications on this device
      </button>
      {explanation && <p class="notifications-toggle-note">{explanation}</p>}
      {state === "on" && (
        <label>
          <input
            type="checkbox"
            checked={preview}
            disabled={busy}
            onChange={(event) => void changePreview(event.currentTarget.checked)}
          />
          Show message text in notifications
        </label>
      )}
      {problem && (
        <p class="notifications-toggle-note" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
