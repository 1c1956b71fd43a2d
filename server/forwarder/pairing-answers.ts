// Answers the pairing requests the bridge forwards (`pair_request` → `pair_result`): the server redeems the code and
// hands the bridge the new device's token for the waiting app. An app that left before the answer leaves a device
// nobody can use: it is revoked at once.
import { pairRequestSchema } from "../../client/wire/frames.ts";
import type { ServerContext } from "../context.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import type { EndToEnd } from "../e2e/end-to-end.ts";
import type { BridgeLink } from "./bridge-link.ts";

export class PairingAnswers {
  constructor(
    private readonly pairing: PairingService,
    private readonly e2e: EndToEnd,
    private readonly link: BridgeLink,
    /** Where apps find this server, told to a newly paired app. */
    private readonly serverUrl: string,
    private readonly log: ServerContext["log"],
  ) {}

  answer(payload: unknown): void {
    try {
      this.redeem(payload);
    } catch (error) {
      // A failed redeem (SQLite busy, disk full) must not kill the server: the waiting app is told to try again.
      this.log.error({ err: error }, "answering a pairing request failed");
      const requestId = (payload as { request_id?: unknown } | null)?.request_id;
      if (typeof requestId === "string")
        this.link.push("pair_result", { request_id: requestId, status: "error", reason: "server_unavailable" });
    }
  }

  private redeem(payload: unknown): void {
    const request = pairRequestSchema.safeParse(payload);
    if (!request.success)
      return this.log.warn({ problem: request.error.issues[0]?.message }, "pair_request not understood");
    const { request_id, code, device_name, device_key } = request.data;
    if (device_key === undefined && this.e2e.requireE2e) {
      // bridge.require_e2e: a device that cannot read sealed events is never paired (the bridge spent the code).
      this.log.warn(
        { request_id, reason: "e2e_required" },
        "plain pairing refused: the config requires end-to-end encryption",
      );
      this.link.push("pair_result", { request_id, status: "error", reason: "e2e_required" });
      return;
    }
    // redeem() announces the change first, so the grants push (with the new device) precedes this answer.
    const result = this.pairing.redeem(code, device_name, device_key);
    if (!result.ok) {
      this.log.warn({ reason: result.reason }, "pairing attempt refused");
      this.link.push("pair_result", { request_id, status: "error", reason: result.reason });
      return;
    }
    const deviceId = result.device_id;
    this.log.info(
      { device_id: deviceId, mode: device_key === undefined ? "plain" : "e2e" },
      "device paired through the bridge",
    );
    const credentials = {
      server_id: this.e2e.serverId,
      device_id: deviceId,
      device_token: result.device_token,
      server_url: this.serverUrl,
      person_id: result.person_id,
    };
    // With a device key the token goes sealed: the bridge hands on what it cannot read, and the device opens it only
    // against the server key it trusts, which proves the answer is this server's.
    const answer =
      device_key === undefined
        ? { device_token: result.device_token }
        : {
            server_key: this.e2e.publicKey,
            sealed: this.e2e.sealPairing(device_key, deviceId, JSON.stringify(credentials)),
          };
    this.link
      .push("pair_result", {
        request_id,
        status: "ok",
        device_id: deviceId,
        server_url: this.serverUrl,
        person_id: result.person_id,
        ...answer,
      })
      .receive("error", (response: { reason?: string }) => this.refused(deviceId, response?.reason))
      .receive("timeout", () =>
        this.log.warn(
          { device_id: deviceId },
          "pair_result not acknowledged; the device stays (the admin may revoke it)",
        ),
      );
  }

  private refused(deviceId: string, reason: string | undefined): void {
    if (reason !== "abandoned") return this.log.warn({ device_id: deviceId, reason }, "bridge refused a pair_result");
    // The app left before the bridge could hand it the token: nobody can use this device, so it goes at once.
    this.log.warn({ device_id: deviceId }, "pairing abandoned by the app; revoking the device it created");
    try {
      this.pairing.revoke(deviceId);
    } catch (error) {
      this.log.error({ err: error, device_id: deviceId }, "revoking an abandoned device failed");
    }
  }
}
