// The first-run link of `npm start` (docs/security.md "First run"): once the server answers, while no device is
// paired (or with --pair), a pairing link that pairs the browser opening it in one step. On a terminal it is printed
// as `Open <link>`; otherwise it goes to DATA_DIR/pair-link.txt (0600), as a link in a log file would outlive its
// use. When phones are given other addresses than this machine's loopback (HOST=0.0.0.0, server.public_url,
// server.app_url), a second code's link is printed for them too, with its QR code. The admin calls use the local
// token the server wrote to DATA_DIR (server/auth/local-admin.ts).
import { rmSync } from "node:fs";
import { join } from "node:path";
import qrcode from "qrcode-terminal";
import { buildPairUrl, deviceListSchema, pairingCreatedSchema, type PairingCreated } from "../../client/wire/index.ts";
import { readLocalAdmin, writePrivateFileAtomically } from "../../server/auth/local-admin.ts";

export const PAIR_LINK_FILE = "pair-link.txt";

export interface FirstRunInput {
  dataDir: string;
  /** The server's loopback URL (its IPC message). */
  serverUrl: string;
  /** The bridge URL a browser on this machine uses: BRIDGE_PUBLIC_URL, else BRIDGE_URL; "" for no bridge. */
  localBridgeUrl: string;
  /** --pair: a link even when devices are paired. */
  force: boolean;
  terminal: boolean;
  write(text: string): void;
}

/** Returns what it did, for the caller's log: printed, written (the file's path), or nothing to do. */
export async function offerFirstRunLink(
  input: FirstRunInput,
): Promise<"printed" | "written" | "paired already" | "no bridge"> {
  const local = readLocalAdmin(input.dataDir);
  if (!local) throw new Error(`no local-admin.json in ${input.dataDir}: the server did not write it`);
  const call = (method: string, path: string) =>
    fetch(`${input.serverUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${local.token}`,
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
      },
      ...(method === "POST" ? { body: "{}" } : {}),
    });
  const file = join(input.dataDir, PAIR_LINK_FILE);
  // A link left by an earlier start is spent or expired by now: only this start's link may be found there.
  rmSync(file, { force: true });
  if (!input.force && (await livePairedDevices(call)) > 0) return "paired already";
  if (input.localBridgeUrl === "") {
    input.write("No pairing link: BRIDGE_URL is empty, and devices pair through the bridge.\n");
    return "no bridge";
  }
  const here = await createCode(call);
  const lines = [
    `Open ${buildPairUrl(input.serverUrl, { code: here.code, bridge: input.localBridgeUrl, ...(here.server_key ? { key: here.server_key } : {}) })}`,
  ];
  lines.push(
    `  pairs the browser that opens it (single use, until ${here.expires_at}); npm start -- --pair makes another`,
  );
  let phone: PairingCreated | undefined;
  if (new URL(here.pair_url).origin !== new URL(input.serverUrl).origin) {
    // A second code: the first device to open a link spends its code.
    phone = await createCode(call);
    lines.push(`On a phone on the same network, scan this or open: ${phone.pair_url}`);
  }
  if (!input.terminal) {
    writePrivateFileAtomically(file, lines.join("\n") + "\n");
    input.write(`pairing link written to ${file} (not a terminal)\n`);
    return "written";
  }
  if (phone) qrcode.generate(phone.pair_url, { small: true }, (qr) => lines.push(qr));
  input.write(lines.join("\n") + "\n");
  return "printed";
}

type Call = (method: string, path: string) => Promise<Response>;

async function livePairedDevices(call: Call): Promise<number> {
  const response = await call("GET", "/devices");
  if (response.status !== 200) throw new Error(`GET /devices answered ${response.status}`);
  const { devices } = deviceListSchema.parse(await response.json());
  return devices.filter((device) => device.revoked_at === null).length;
}

async function createCode(call: Call): Promise<PairingCreated> {
  const response = await call("POST", "/pairing");
  if (response.status !== 201) throw new Error(`POST /pairing answered ${response.status}: ${await response.text()}`);
  return pairingCreatedSchema.parse(await response.json());
}
