// A GET whose path goes on the wire exactly as written: fetch would normalise `..` and dot segments away, and the
// tests that prove no path leaves the app's folder need them to reach the server as the attacker wrote them.
import { request } from "node:http";

export function rawGet(port: number | string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
