// Loaded (`--import`) into each child of `npm start`. The children run in their own process groups, so a signal
// the terminal sends reaches the supervisor only; should the supervisor itself die (SIGKILL), its IPC channel
// closes and this stops the child as a SIGTERM would, so no server or bridge is left running without it.
if (process.send !== undefined) {
  // The channel must not keep an otherwise finished child alive.
  process.channel?.unref();
  process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
export {};
