// A steady load on a fixed schedule: `slots` actions, one every 1000/`perSecond` ms from the start; a late timer
// does not stretch the schedule (the next slot is due at its own time, not a period after the late one). `act` gets
// the wall-clock time its slot was due: a sender that stamps its own events stamps that, so its lateness counts.
export async function scheduleSlots(
  slots: number,
  perSecond: number,
  act: (slot: number, dueAt: number) => void,
): Promise<void> {
  const start = performance.now();
  for (let slot = 0; slot < slots; slot++) {
    act(slot, performance.timeOrigin + start + (slot * 1000) / perSecond);
    const due = start + ((slot + 1) * 1000) / perSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
}
