// Entry: resume a stored pairing (or show pairing), render, and register the service worker that keeps the
// app shell for offline use.
import { render } from "preact";
import { App } from "./app.tsx";
import { resume } from "./state/connection.ts";
import "./styles/base.css";
import "./styles/chat.css";
import "./styles/screens.css";

const root = document.getElementById("root")!;
render(<App ready={false} />, root);
void resume().finally(() => render(<App ready={true} />, root));

if ("serviceWorker" in navigator && location.protocol !== "file:") {
  addEventListener("load", () => void navigator.serviceWorker.register("./sw.js").catch(() => undefined));
}
