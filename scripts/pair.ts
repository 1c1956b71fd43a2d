// `npm run pair`: asks the running server for a pairing code (POST /pairing with ADMIN_TOKEN) and shows it as
// text and as a QR code in the terminal. The QR holds a JSON of everything an app needs to pair.
import qrcode from "qrcode-terminal";
import { z } from "zod";

const pairingSchema = z.object({ code: z.string(), expires_at: z.string(), server_id: z.string(), bridge_url: z.string(), server_url: z.string() });

async function main(): Promise<void> {
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error("ADMIN_TOKEN: set it to the admin token the server printed at its first start");
  const base = process.env.SERVER_URL ?? `http://${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT ?? "8787"}`;
  const response = await fetch(`${base}/pairing`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
  if (response.status !== 201) throw new Error(`POST ${base}/pairing answered ${response.status}: ${await response.text()}`);
  const pairing = pairingSchema.parse(await response.json());
  qrcode.generate(JSON.stringify({ code: pairing.code, server_id: pairing.server_id, bridge_url: pairing.bridge_url, server_url: pairing.server_url }), { small: true });
  process.stdout.write(`\npairing code: ${pairing.code}\nexpires at:   ${pairing.expires_at}\nserver:       ${pairing.server_id} (${pairing.server_url})\nbridge:       ${pairing.bridge_url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
