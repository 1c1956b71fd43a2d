// `npm run pair`: asks the running server for a pairing code (POST /pairing) and shows its pair_url as a QR code
// in the terminal: a phone's camera opens the app at that link and pairs with one tap. The code and its expiry are
// printed too, for typing the code by hand. The owner of DATA_DIR needs no ADMIN_TOKEN: the server's local admin
// token is read from DATA_DIR (owner-access.ts). The answer is checked with the client library's schema (client/wire).
import qrcode from "qrcode-terminal";
import { pairingCreatedSchema } from "../client/wire/index.ts";
import { serverAccess } from "./owner-access.ts";

async function main(): Promise<void> {
  const { url: base, token } = serverAccess();
  const response = await fetch(`${base}/pairing`, {
    method: "POST",
    headers: { "authorization": `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  if (response.status !== 201)
    throw new Error(`POST ${base}/pairing answered ${response.status}: ${await response.text()}`);
  const pairing = pairingCreatedSchema.parse(await response.json());
  qrcode.generate(pairing.pair_url, { small: true });
  process.stdout.write(
    `\nscan it with the phone's camera, or open:\n  ${pairing.pair_url}\n\n` +
      `pairing code: ${pairing.code}\nexpires at:   ${pairing.expires_at} (single use)\n` +
      `server:       ${pairing.server_id} (${pairing.server_url})\nbridge:       ${pairing.bridge_url}\n` +
      // Compared by eye when a phone pairs by typed code (the QR code carries the key itself): docs/security.md.
      (pairing.fingerprint
        ? `fingerprint:  ${pairing.fingerprint} (the server key; the app shows it after pairing)\n`
        : ""),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
