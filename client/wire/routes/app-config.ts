// GET /app-config.json (no token): where the app served from here finds its server and bridge (docs/security.md
// "What the app is told"). The app reads it relative to its own address, beside its files.
import { appConfigSchema } from "../app-config.ts";
import { defineRoute } from "./route.ts";

export const appConfigRoute = defineRoute("GET", "/app-config.json", () => ({
  answer: appConfigSchema,
  open: true,
}));
