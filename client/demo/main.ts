// The browser demo: pair with a code, connect, show live events and the notification rail with dismiss.
// No framework: a few DOM nodes bound to the client's observables. Build it with client/demo/build.ts.
// Query parameters prefill the form: ?bridge=ws://…/socket&code=…&server=<http base for the API>. `server`
// overrides the server_url pairing returned, for a dev server that proxies the API to avoid cross-origin calls.
import { connect, loadCredentials, pair, saveCredentials, webStorage, type ChatClient, type PresentedNotification } from "../index.ts";

const storage = webStorage(window.localStorage, "chat-relay-demo:");
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);

function showStatus(client: ChatClient): void {
  const render = () => {
    const status = client.status.get();
    $("status").textContent = status.state === "stopped" ? `stopped (${status.reason})` : status.state;
    $("status").dataset.state = status.state;
  };
  render();
  client.status.subscribe(render);
}

function showEvents(client: ChatClient): void {
  client.on("*", (event) => {
    const item = document.createElement("li");
    item.dataset.eventId = event.event_id;
    item.textContent = `${event.event_id} ${event.type}${event.session_id ? ` ${event.session_id}` : ""}`;
    $("events").append(item);
  });
}

function showRail(client: ChatClient): void {
  const render = (items: readonly PresentedNotification[]) => {
    $("rail").replaceChildren(...items.map((item) => railItem(client, item)));
  };
  render(client.notifications.application.get());
  client.notifications.application.subscribe(render);
}

function railItem(client: ChatClient, item: PresentedNotification): HTMLElement {
  const li = document.createElement("li");
  li.dataset.id = item.record.id;
  const title = document.createElement("strong");
  title.textContent = item.record.title;
  const button = document.createElement("button");
  button.textContent = "Dismiss";
  button.addEventListener("click", () => {
    button.disabled = true;
    client.notifications.dismiss(item).catch((error: unknown) => {
      button.disabled = false;
      $("error").textContent = String(error);
    });
  });
  li.append(title, " ", button);
  return li;
}

async function start(): Promise<void> {
  $<HTMLInputElement>("bridge").value = params.get("bridge") ?? "";
  $<HTMLInputElement>("code").value = params.get("code") ?? "";
  let credentials = await loadCredentials(storage);
  if (!credentials) {
    const code = params.get("code") ?? (await submitted());
    credentials = await pair({ bridgeUrl: $<HTMLInputElement>("bridge").value, code, deviceName: $<HTMLInputElement>("device").value });
    await saveCredentials(storage, credentials);
  }
  const server = params.get("server");
  const client = connect(server ? { ...credentials, server_url: server } : credentials, { storage, mode: "desktop" });
  showStatus(client);
  showEvents(client);
  showRail(client);
}

function submitted(): Promise<string> {
  return new Promise((resolve) =>
    $("pair-form").addEventListener("submit", (event) => {
      event.preventDefault();
      resolve($<HTMLInputElement>("code").value);
    }),
  );
}

start().catch((error: unknown) => {
  $("error").textContent = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
});
