// "Unpair this device": revoked on the server first (DELETE /devices/self), so its token stops working everywhere
// at once, then this browser forgets its credentials and wipes what it kept. A failure of the first step leaves the
// device paired (the caller says why); an already revoked device (401) is forgotten as well.
import { UnauthorizedError } from "../../../client/index.ts";
import type { Connection } from "./connection.ts";

export async function unpairThisDevice(connection: Connection): Promise<void> {
  const current = connection.paired.value;
  if (!current) return;
  try {
    await current.client.unpairSelfDevice();
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await connection.forget(false);
}
