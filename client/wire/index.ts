// The wire contract: every shape that crosses HTTP or the bridge. Server and bridge import this module only.
export * from "./event-id.ts";
export * from "./clock.ts";
export * from "./messages.ts";
export * from "./whole-characters.ts";
export * from "./events.ts";
export * from "./errors.ts";
export * from "./http.ts";
export * from "./api.ts";
export * from "./frames.ts";
export * from "./notification.ts";
export * from "./pair-url.ts";
export * from "./server-status.ts";
export * from "./app-config.ts";
export * from "./routes/index.ts";
