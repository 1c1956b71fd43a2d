// Every route module's contracts (one file each, docs/server.md "Route contracts").
export * from "./route.ts";
export * from "./query.ts";
export * from "./search.ts";
export * from "./settings.ts";
export * from "./personal.ts";
export * from "./mcp.ts";
export * from "./people.ts";
