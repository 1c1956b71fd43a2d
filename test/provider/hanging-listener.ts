// A loopback listener whose accept queue is full, so a new connect to it hangs (its SYNs are dropped) as it would
// against a host that drops SYNs. The listening socket lives in a worker thread whose event loop is blocked, so it
// never accepts; `backlog: 1` (Node turns 0 into its default of 511) lets the kernel queue two connections, and
// fillers take those places. Any later connect gets no answer until the kernel gives up (about 2 minutes).
import net from "node:net";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const net = require("node:net");
const server = net.createServer();
server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
  parentPort.postMessage(server.address().port);
  // Block this thread's event loop (so nothing is accepted) until the owner flips the flag.
  setImmediate(() => {
    const flag = new Int32Array(workerData);
    while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0);
    server.close();
  });
});`;

/** Connections that fill the queue; more than the kernel's two places, so it is surely full. */
const FILLERS = 4;

export interface HangingListener {
  url: string;
  close(): Promise<void>;
}

export async function startHangingListener(): Promise<HangingListener> {
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: flag });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const fillers = await fillQueue(port);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      const view = new Int32Array(flag);
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
      for (const socket of fillers) socket.destroy();
      await worker.terminate();
    },
  };
}

/** Opens fillers until two have connected (the queue's places); the others hang, which proves it is full. */
async function fillQueue(port: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  let connected = 0;
  await new Promise<void>((resolve) => {
    for (let i = 0; i < FILLERS; i++) {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => undefined);
      socket.on("connect", () => {
        connected += 1;
        if (connected === 2) resolve();
      });
      sockets.push(socket);
    }
  });
  return sockets;
}
