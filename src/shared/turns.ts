// Letting the event loop turn in the middle of long work.

/**
 * Resolves after two turns of the event loop: between them comes a poll for I/O, so what arrived
 * while the caller worked without a pause (a request, a file watcher's event) has been handled.
 */
export function eventLoopTurns(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
