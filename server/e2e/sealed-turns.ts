// The sealed relayed calls of one event-loop turn, opened together and their answers sealed together
// (docs/security.md "Relay"). At many apps, many sealed calls reach the server in one turn (one read of the bridge's
// socket holds many frames). Each call's cipher work used to run between the routes' work, where OpenSSL's per-call
// code, Node's cipher objects and their buffers are cold: it cost about three times what it costs in a warm loop
// (docs/benchmarks.md "Sealed relay"). Here a turn's calls are opened back to back at the end of the turn they came in
// (turn-batch.ts), their replay floors written in one write, their routes started in the order the calls came; the
// answers that are ready in one turn are sealed back to back at its end.
//
// What does not change: each call is checked against replays once, in arrival order, and runs only after its floor
// is written (a restart still refuses it); a call that is refused, or whose route or sealing fails, is answered alone
// and the others of its batch go on; a lone call waits for no other, at most one turn before it runs and one before
// its answer is sealed.
import type { ServerContext } from "../context.ts";
import {
  admitSealedCall,
  innerCallOf,
  sealAnswer,
  type OpenedCall,
  type RunCall,
  type SealedCallAnswer,
} from "./sealed-calls.ts";
import { TurnBatch } from "./turn-batch.ts";
import type { ApiResult } from "../../client/wire/frames.ts";

interface Settle {
  resolve(answer: SealedCallAnswer): void;
  reject(error: unknown): void;
}

interface Arrival {
  run: RunCall;
  deviceId: string | undefined;
  body: unknown;
  settle: Settle;
}

interface Answered {
  opened: OpenedCall;
  result: ApiResult;
  settle: Settle;
}

class SealedTurns {
  private readonly arrivals = new TurnBatch<Arrival>((batch) => this.openAll(batch));
  private readonly answers = new TurnBatch<Answered>((batch) => this.sealAll(batch));

  constructor(private readonly ctx: ServerContext) {}

  run(run: RunCall, deviceId: string | undefined, body: unknown): Promise<SealedCallAnswer> {
    return new Promise((resolve, reject) => this.arrivals.add({ run, deviceId, body, settle: { resolve, reject } }));
  }

  /** Opens and checks the turn's calls, writes their floors in one write, then starts their routes in order. */
  private openAll(batch: readonly Arrival[]): void {
    const opened: Array<{ arrival: Arrival; call: OpenedCall }> = [];
    for (const arrival of batch) {
      try {
        const admitted = admitSealedCall(this.ctx, arrival.deviceId, arrival.body);
        if ("refusal" in admitted) arrival.settle.resolve(admitted.refusal);
        else opened.push({ arrival, call: admitted });
      } catch (error) {
        arrival.settle.reject(error);
      }
    }
    if (opened.length === 0) return;
    try {
      // The floors are on disk before any call runs, so a restart cannot make one runnable again.
      this.ctx.e2e.calls.flush();
    } catch (error) {
      for (const { arrival } of opened) arrival.settle.reject(error);
      return;
    }
    for (const { arrival, call } of opened) void this.runOpened(arrival, call);
  }

  private async runOpened(arrival: Arrival, opened: OpenedCall): Promise<void> {
    try {
      const result = await arrival.run(innerCallOf(opened));
      this.answers.add({ opened, result, settle: arrival.settle });
    } catch (error) {
      arrival.settle.reject(error);
    }
  }

  private sealAll(batch: readonly Answered[]): void {
    for (const { opened, result, settle } of batch) {
      try {
        settle.resolve(sealAnswer(this.ctx, opened, result));
      } catch (error) {
        settle.reject(error);
      }
    }
  }
}

const turnsOf = new WeakMap<ServerContext, SealedTurns>();

/**
 * Opens a sealed relayed call with the others of its turn, runs it as its device and answers it sealed; refusals are
 * answered in the documented error body. Rejects only when the call failed inside the server (its route, or the
 * replay floors' write): the caller answers that like any failed call.
 */
export function runSealedCall(
  ctx: ServerContext,
  run: RunCall,
  deviceId: string | undefined,
  body: unknown,
): Promise<SealedCallAnswer> {
  let turns = turnsOf.get(ctx);
  if (!turns) turnsOf.set(ctx, (turns = new SealedTurns(ctx)));
  return turns.run(run, deviceId, body);
}
