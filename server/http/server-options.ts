// The HTTP server's refusal handlers, as Fastify options (buildApp spreads them in).
import type { FastifyServerOptions } from "fastify";
import { clientErrorHandler, frameworkErrors } from "./framework-errors.ts";

/** Fastify options that give every refusal DESIGN.md's error body. */
export function httpServerOptions(): FastifyServerOptions {
  return { frameworkErrors, clientErrorHandler };
}
