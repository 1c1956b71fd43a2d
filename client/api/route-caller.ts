// What every group of typed server calls (calls/) stands on: the one abstract `request`, which ChatClient implements
// (routing a call through the bridge relay, or reacting to a revoked token, happens in that one place), and `call`,
// which calls a route by its wire contract, so no path is spelled in a group.
import type { z } from "zod";
import type { Requester, RequestOptions } from "../transport/http.ts";
import type { RouteAnswer, RouteContract, RouteInput } from "../wire/routes/route.ts";
import { callRoute } from "./call-route.ts";

export abstract class RouteCaller implements Requester {
  /** The one request function: every typed call goes through it. */
  abstract request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>>;

  /** Calls a route by its wire contract (call-route.ts): every typed method is one such call. */
  protected call<C extends RouteContract>(
    contract: C,
    input: RouteInput<C>,
    options: Pick<RequestOptions, "signal"> = {},
  ): Promise<RouteAnswer<C>> {
    return callRoute(this, contract, input, options);
  }

  /**
   * Whether a body of `bytes` goes in parts (docs/uploads.md). Here never: ChatClient says so when the call would go
   * through the bridge relay, which carries JSON under one frame.
   */
  protected sendsInParts(_bytes: number): boolean {
    return false;
  }
}
