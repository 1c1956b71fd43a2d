// The server's side of the API relay (docs/bridge.md "Relay"): the bridge forwards an app's call as `api_request`
// {request_id, device_id, method, path, body?}; the route runs in-process (http/in-process-request.ts: Fastify's own
// router, so the same routing, validation, hooks and error bodies as over HTTP), authorized as that device's token
// would be (the request carries Authenticator.relayPass, which the auth hook checks: admin routes answer the device's
// 403, a revoked device 401), and the answer
// goes back as `api_result`. A response too big for one bridge frame is answered `too_large` instead: sent whole it
// would make the bridge close the server's socket (1009).
import type { FastifyInstance } from "fastify";
import {
  apiRequestSchema,
  asksLongPoll,
  RELAY_MAX_BODY_BYTES,
  type ApiRequest,
  type ApiResult,
} from "../../client/wire/frames.ts";
import type { ServerContext } from "../context.ts";
import type { BridgeLink } from "./bridge-link.ts";
import { E2E_RELAY_PATH } from "../../client/wire/e2e.ts";
import { runSealedCall } from "../e2e/sealed-calls.ts";
import { JsonText, withJsonBody } from "./json-text.ts";
import { runInProcess } from "../http/in-process-request.ts";

/** What the relay needs of the HTTP app: its router, to run a request in-process. */
export type RoutingTarget = Pick<FastifyInstance, "routing">;

/** Answers the `api_request`s the bridge sends on the server's channel. */
export class ApiRelayAnswers {
  constructor(
    private readonly ctx: ServerContext,
    private readonly app: RoutingTarget,
    private readonly link: BridgeLink,
  ) {}

  answer(payload: unknown): void {
    void runRelayedCall(this.ctx, this.app, payload).then((result) => {
      // The bridge forgot the calls of a link that dropped (it answered them server_unavailable): pushing on the
      // next join would only be queued and ignored.
      if (result && this.link.isOpen()) this.link.send("api_result", new JsonText(withJsonBody(result)));
    });
  }
}

/** Runs one relayed call and resolves with its `api_result` (a JSON body as the route's own text: JsonText); never
 *  rejects. */
export async function runRelayedCall(
  ctx: ServerContext,
  app: RoutingTarget,
  payload: unknown,
): Promise<ApiResult | undefined> {
  const parsed = apiRequestSchema.safeParse(payload);
  if (!parsed.success) {
    ctx.log.warn({ problem: parsed.error.issues[0]?.message }, "api_request not understood");
    const requestId = (payload as { request_id?: unknown } | null)?.request_id;
    return typeof requestId === "string" && requestId.length <= 100
      ? { request_id: requestId, reason: "invalid_request" }
      : undefined;
  }
  const call = parsed.data;
  // A sealed call (end-to-end encryption) is opened and run here, without a round through its own route; the call
  // inside was checked as it was opened (sealed-calls.ts), so it runs without a second pass through the schema.
  if (call.method === "POST" && call.path === E2E_RELAY_PATH)
    return answerOrFailure(ctx, call.request_id, async () => ({
      request_id: call.request_id,
      ...(await runSealedCall(ctx, (inner) => runCheckedCall(ctx, app, inner), call.device_id, call.body)),
    }));
  return runCheckedCall(ctx, app, call);
}

/** Runs a relayed call that passed apiRequestSchema's checks (here or as a sealed call's content); never rejects. */
export async function runCheckedCall(ctx: ServerContext, app: RoutingTarget, call: ApiRequest): Promise<ApiResult> {
  // The bridge refuses long-polls already; a server never holds an inject open for a wait it cannot relay.
  if (asksLongPoll(call.path)) return { request_id: call.request_id, reason: "invalid_request" };
  return answerOrFailure(ctx, call.request_id, () => inject(ctx, app, call));
}

/** The call's answer, or a 500 in the documented error body when it failed inside the server. */
async function answerOrFailure(
  ctx: ServerContext,
  requestId: string,
  answer: () => Promise<ApiResult>,
): Promise<ApiResult> {
  try {
    return await answer();
  } catch (error) {
    ctx.log.error({ err: error, request_id: requestId }, "a relayed call failed inside the server");
    return {
      request_id: requestId,
      status: 500,
      body: { error: { code: "internal_error", message: "the relayed call failed inside the server" } },
    };
  }
}

async function inject(ctx: ServerContext, app: RoutingTarget, call: ApiRequest): Promise<ApiResult> {
  const hasBody = call.body !== undefined;
  const response = await runInProcess(app, {
    method: call.method,
    url: call.path,
    headers: hasBody ? { "content-type": "application/json" } : {},
    relayed: ctx.auth.relayPass(call.device_id),
    ...(hasBody ? { body: JSON.stringify(call.body) } : {}),
  });
  const contentType = response.headers["content-type"];
  const type = typeof contentType === "string" ? contentType : undefined;
  const isJson = type === undefined || /^application\/(.+\+)?json\b/.test(type);
  const text = response.body.toString(isJson ? "utf8" : "base64");
  // The JSON text is measured before parsing: parsing and re-serializing a huge body only to refuse it is waste.
  if (Buffer.byteLength(text) > RELAY_MAX_BODY_BYTES) {
    ctx.log.warn(
      { request_id: call.request_id, path: call.path.split("?", 1)[0], bytes: Buffer.byteLength(text) },
      "relayed answer too large for a bridge frame",
    );
    return { request_id: call.request_id, reason: "too_large" };
  }
  if (!isJson)
    return {
      request_id: call.request_id,
      status: response.statusCode,
      body: text,
      content_type: type,
      body_encoding: "base64",
    };
  // The route's text goes into the frame as is (json-text.ts), not serialized again. It is parsed once to check it:
  // a route that sent something else under a JSON type fails this call (500), not the server's link to the bridge
  // (which closes a link that sends a frame it cannot decode).
  if (text !== "") JSON.parse(text);
  return { request_id: call.request_id, status: response.statusCode, body: new JsonText(text === "" ? "null" : text) };
}
