// The library in Chromium on an origin that is not a secure context: the page is served from 127.0.0.1 but opened as
// http://lan.test:<port>/ (Chromium maps the name to 127.0.0.1), which is neither https nor localhost, as a phone
// opening http://<LAN address>:8787 is. So no crypto.randomUUID, no navigator.clipboard, no service worker.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "../../app/support/browser.ts";

export const INSECURE_HOST = "lan.test";

/** The library's public entry as one browser script that sets `window.lib`. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./browser-entry.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

export class InsecurePage {
  private constructor(
    private readonly server: Server,
    private readonly browser: Browser,
    readonly page: Page,
    readonly errors: string[],
  ) {}

  static async open(): Promise<InsecurePage> {
    const script = await bundle();
    const server = createServer((request, response) => {
      if (request.url === "/lib.js") {
        response.writeHead(200, { "content-type": "text/javascript" });
        return response.end(script);
      }
      response.writeHead(200, { "content-type": "text/html" });
      response.end('<!doctype html><html><body><script src="/lib.js"></script></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`],
    });
    const page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`http://${INSECURE_HOST}:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => "lib" in globalThis);
    return new InsecurePage(server, browser, page, errors);
  }

  async close(): Promise<void> {
    await this.browser.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
