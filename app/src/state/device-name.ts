// Defaults of the pairing form: a device name from the browser ("Chrome on Android") and the bridge address
// guessed from where the app was loaded (the bridge listens on port 4000 of the same host by default).

export function defaultDeviceName(): string {
  const agent = navigator.userAgent;
  const browser = /Firefox\//.test(agent) ? "Firefox" : /Edg\//.test(agent) ? "Edge" : /Chrome\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : "Browser";
  const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS" : /Mac OS X/.test(agent) ? "macOS" : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "";
  return system ? `${browser} on ${system}` : browser;
}

export function defaultBridgeUrl(): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const host = location.hostname || "127.0.0.1";
  return `${scheme}://${host}:4000/socket`;
}
