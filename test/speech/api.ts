// ServerApi over plain HTTP, for suites that check the library's speech methods against a listening server.
import type { z } from "zod";
import { ServerApi } from "../../client/api/server-api.ts";
import type { HttpApi, RequestOptions } from "../../client/transport/http.ts";

export class ChatServerApi extends ServerApi {
  constructor(private readonly http: HttpApi) {
    super();
  }

  request<S extends z.ZodType>(method: string, path: string, schema: S, options?: RequestOptions): Promise<z.infer<S>> {
    return this.http.request(method, path, schema, options);
  }
}
