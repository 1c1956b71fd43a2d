// docs/client.md "Pair" and "Connect": pair once, keep the credentials, connect on every start (Node).
import { WebSocket } from "ws";
import {
  connect,
  loadCredentials,
  memoryStorage,
  pair,
  PairingError,
  saveCredentials,
  type ChatClient,
  type WebSocketConstructor,
} from "../../client/index.ts";

const storage = memoryStorage(); // webStorage(localStorage) in a browser, asyncStorage(AsyncStorage) in React Native

export async function start(bridgeUrl: string, code: string): Promise<ChatClient> {
  let credentials = await loadCredentials(storage);
  if (!credentials) {
    try {
      credentials = await pair({
        bridgeUrl,
        code,
        deviceName: "my laptop",
        WebSocket: WebSocket as unknown as WebSocketConstructor,
      });
    } catch (error) {
      if (error instanceof PairingError && error.reason === "expired")
        throw new Error("That code has expired: ask for a new one.");
      throw error;
    }
    await saveCredentials(storage, credentials);
  }
  const client = connect(credentials, {
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    storage,
    mode: "desktop",
  });
  client.status.subscribe((status) => {
    if (status.state === "stopped" && status.reason === "revoked") console.log("This device was removed: pair again.");
    else console.log("connection:", status.state);
  });
  return client;
}
