// One sentence for any failure a screen shows: what happened, in words a person can act on.
import { HttpError, NetworkError, PairingError, UnauthorizedError } from "../../../client/index.ts";
import { isServerUnavailable, type Badge } from "./connection-status.ts";

/** How to get a fresh pairing link, said wherever a link or code failed. */
export const NEW_LINK_HOW =
  "on the server's computer run npm run pair (or restart it with npm start -- --pair), or open Devices → Add device on a browser that is paired.";

export const SERVER_OFFLINE_TEXT =
  "your server is offline: the bridge answers, but the server is not connected to it. Start the server again, then retry.";

/** `badge` (when known) tells a network failure from a server that is off the bridge. */
export function describeError(error: unknown, badge?: Badge): string {
  if (error instanceof UnauthorizedError) return "this device is no longer paired.";
  if (error instanceof HttpError) {
    // A message's text counts too: a send without attachments is refused 413 when its text alone is too large.
    if (error.status === 413) return "the message or its attachment is larger than the server accepts.";
    if (error.status === 409) return "a reply is still running; wait for it or stop it.";
    return `${error.message} (${error.status}).`;
  }
  if (isServerUnavailable(error) || (error instanceof NetworkError && badge === "server_offline"))
    return SERVER_OFFLINE_TEXT;
  if (error instanceof NetworkError)
    return badge === "offline"
      ? "this device is offline. Check its network connection."
      : "the server could not be reached. Check your connection.";
  if (error instanceof PairingError) return pairingFailureText(error.reason);
  if (error instanceof Error) return error.message;
  return String(error);
}

/** What a pairing link that failed says: used and expired links get the way to a new one. */
export function linkFailureText(error: unknown): string {
  if (error instanceof PairingError && (error.reason === "invalid_code" || error.reason === "expired")) {
    return `This pairing link was already used or has expired. To get a new one, ${NEW_LINK_HOW}`;
  }
  return describeError(error);
}

export function pairingFailureText(reason: PairingError["reason"]): string {
  switch (reason) {
    case "invalid_code":
      return `That code is not valid. Check it, or get a new one: ${NEW_LINK_HOW}`;
    case "expired":
      return `That code has expired (codes last 10 minutes). To get a new one, ${NEW_LINK_HOW}`;
    case "rate_limited":
      return "Too many attempts from this network. Wait a minute, then try again.";
    case "bridge_unreachable":
    case "timeout":
      return "The bridge could not be reached. Make sure the server is running and this device is on the same network, then try again.";
    case "server_unavailable":
      return "The bridge is up but your server is not connected to it yet. Wait a moment and try again.";
    case "invalid_params":
      return "The device name or code was refused. Use a shorter name and check the code.";
    case "protocol":
      return "The bridge answered something this app does not understand. Update the app or the server.";
    case "server_key_mismatch":
      return "The answer did not come from the server in the pairing link: something between this device and your server answered instead. Do not use this network; create a new code and try again.";
    case "not_encrypted":
      return "The answer came back without encryption, so the pairing was stopped. Remove the new device under Devices, then pair again.";
    case "e2e_required":
      return "Your server only pairs devices that encrypt end to end. Use this app, or update it.";
  }
}
