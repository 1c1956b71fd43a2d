// Calls a route through its wire contract (client/wire/routes/): the path is built from the contract's parameters,
// the answer parsed with its schema (read as bytes when the contract says so). ServerApi's methods, the admin's and
// the notification center's calls all go through here, so no caller spells a path.
import type { Query, Requester, RequestOptions } from "../transport/http.ts";
import { routePath, type RouteAnswer, type RouteContract, type RouteInput } from "../wire/routes/route.ts";

export function callRoute<C extends RouteContract>(
  requester: Requester,
  contract: C,
  input: RouteInput<C>,
  options: Pick<RequestOptions, "signal"> = {},
): Promise<RouteAnswer<C>> {
  const { params, query, body } = input as { params?: Record<string, string | number>; query?: Query; body?: unknown };
  const path = routePath(contract.path, params);
  return requester.request(contract.method, path, contract.answer, {
    ...options,
    query,
    body,
    ...(contract.bytes ? { expect: "bytes" as const } : {}),
  }) as Promise<RouteAnswer<C>>;
}
