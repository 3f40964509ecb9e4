/**
 * What SIGINT (Ctrl-C) and SIGTERM (a cancelled CI job, a service stopped) do while an assembly
 * holds the archive's lock: first what a failure does (the staging folder removed, the lock
 * released), so that the next run starts at once, on Node as on Deno, which cannot tell whether
 * the process that left a lock is still alive; then the process exits with the status a shell
 * gives a process that signal ends (130, 143). Without this, the lock and the staging folder
 * stayed behind, and on Deno every later run was refused until the lock was removed by hand.
 *
 * A handler runs between two steps of the event loop, never inside a synchronous write: the
 * branch moves and the site is swapped by renames that a signal cannot cut in two.
 */
import process from "node:process";

export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * Listens for the stop signals until the returned function is called. `undo` puts things back
 * and says what this run had done when it was stopped; `warn` prints that.
 */
export function onStopSignal(undo: () => string, warn: (message: string) => void): () => void {
  const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
  const stop = () => {
    for (const s of signals) process.off(s, handler);
  };
  function handler(signal: StopSignal) {
    stop();
    let done = "";
    try {
      done = undo();
    } finally {
      warn(`Stopped by ${signal}: ${done}`);
      process.exit(STOP_SIGNALS[signal]);
    }
  }
  for (const s of signals) process.on(s, handler);
  return stop;
}
