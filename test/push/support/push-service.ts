// The push service for tests: `web-push-testing` (an independent implementation from npm: it checks the VAPID
// signature and decrypts the payload) run as a child process on a free port, behind a tap on 127.0.0.1 that records
// each push's headers and arrival time and can answer the next pushes itself (429, 503) before forwarding.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { request } from "undici";

const SERVER_JS = fileURLToPath(new URL("../../../node_modules/web-push-testing/src/bin/server.js", import.meta.url));

export interface TappedPush {
  clientHash: string;
  headers: Record<string, string>;
  receivedAt: number;
  /** What the tap answered (its own refusal, or the push service's status). */
  status: number;
}

export interface TestSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
  clientHash: string;
}

export class PushServiceStandIn {
  /** Every push that reached the tap, in order. */
  readonly pushes: TappedPush[] = [];
  /** Statuses (and Retry-After) the tap answers the next pushes with, instead of forwarding them. */
  readonly refusals: Array<{ status: number; retryAfter?: string }> = [];
  private constructor(
    private readonly child: ChildProcess,
    private readonly servicePort: number,
    private readonly tap: Server,
  ) {}

  static async start(): Promise<PushServiceStandIn> {
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const child = spawn(process.execPath, [SERVER_JS, String(port)], { stdio: ["ignore", "pipe", "pipe"] });
      if (await listening(child)) {
        const standIn = new PushServiceStandIn(child, port, createServer());
        await standIn.listenTap();
        return standIn;
      }
      child.kill();
      // Another process took the port between the probe and the child's listen: try another.
      if (attempt >= 3) throw new Error("web-push-testing did not start");
    }
  }

  get tapUrl(): string {
    return `http://127.0.0.1:${(this.tap.address() as AddressInfo).port}`;
  }

  /** A browser's subscription to the push service for `applicationServerKey`; its endpoint goes through the tap. */
  async subscribe(applicationServerKey: string): Promise<TestSubscription> {
    const answer = await this.call("/subscribe", { userVisibleOnly: "true", applicationServerKey });
    const { endpoint, keys, clientHash } = answer.data as {
      endpoint: string;
      keys: { p256dh: string; auth: string };
      clientHash: string;
    };
    return { endpoint: `${this.tapUrl}${new URL(endpoint).pathname}`, expirationTime: null, keys, clientHash };
  }

  /** The payloads the push service decrypted for a subscription, oldest first. */
  async messages(clientHash: string): Promise<any[]> {
    const answer = await this.call("/get-notifications", { clientHash });
    return (answer.data as { messages: string[] }).messages.map((text) => JSON.parse(text));
  }

  /** Makes the push service answer 410 to later pushes for this subscription. */
  async expire(clientHash: string): Promise<void> {
    await this.call(`/expire-subscription/${clientHash}`, {});
  }

  async close(): Promise<void> {
    this.tap.closeAllConnections();
    await new Promise<void>((resolve) => this.tap.close(() => resolve()));
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill();
    await exited;
  }

  private async call(path: string, body: unknown): Promise<{ data?: unknown }> {
    const response = await request(`http://127.0.0.1:${this.servicePort}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`push service ${path}: ${response.statusCode} ${text}`);
    return text === "OK" || text === "" ? {} : JSON.parse(text);
  }

  private listenTap(): Promise<void> {
    this.tap.on("request", (req, res) => void this.forward(req, res));
    return new Promise((resolve) => this.tap.listen(0, "127.0.0.1", () => resolve()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const receivedAt = Date.now();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
    const clientHash = (req.url ?? "").split("/").pop() ?? "";
    const refusal = this.refusals.shift();
    if (refusal) {
      this.pushes.push({ clientHash, headers, receivedAt, status: refusal.status });
      res.writeHead(refusal.status, refusal.retryAfter ? { "retry-after": refusal.retryAfter } : {}).end();
      return;
    }
    const { "host": _host, "connection": _connection, "content-length": _length, ...forwarded } = headers;
    const answer = await request(`http://127.0.0.1:${this.servicePort}${req.url}`, {
      method: "POST",
      headers: forwarded,
      body: Buffer.concat(chunks),
    });
    const text = await answer.body.text();
    this.pushes.push({ clientHash, headers, receivedAt, status: answer.statusCode });
    res.writeHead(answer.statusCode, { "content-type": "application/json" }).end(text);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves true once the child says it listens, false when it exits first. */
function listening(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Server running on port")) resolve(true);
    });
    child.stderr!.resume();
    child.once("exit", () => resolve(false));
  });
}
