// When the outbox tries again by itself (docs/app.md "Outbox", OB11). A chat whose send must wait (judged "later")
// while the badge says the server answers (Live or Polling) would otherwise wait for the badge to change, which it
// need not ever do: a send refused as busy, or a relayed call that failed once while the server came back, leaves
// the badge where it was. So a flush follows after a pause that grows to a minute, whatever other chats are doing;
// the outbox emptied, or the badge turning Live or Polling again, starts the pauses over.

/** The pauses before each try again, the last one repeating. */
export const OUTBOX_RETRY_DELAYS_MS: readonly number[] = [2_000, 5_000, 15_000, 30_000, 60_000];

export interface RetrySchedule {
  /** Runs the flush after the next pause, unless one is already due. */
  later(): void;
  /** Cancels what is due and starts the pauses over. */
  reset(): void;
}

export function retrySchedule(flush: () => void): RetrySchedule {
  let attempt = 0;
  let due: ReturnType<typeof setTimeout> | undefined;
  return {
    later() {
      if (due !== undefined) return;
      const pause = OUTBOX_RETRY_DELAYS_MS[Math.min(attempt++, OUTBOX_RETRY_DELAYS_MS.length - 1)];
      due = setTimeout(() => ((due = undefined), flush()), pause);
    },
    reset() {
      clearTimeout(due);
      due = undefined;
      attempt = 0;
    },
  };
}
