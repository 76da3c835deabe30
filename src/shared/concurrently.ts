// Tasks run a few at a time: file system calls go through libuv's thread pool, and one at a time
// each waits for the round trip of the last.

/** Runs `task` on every value, `concurrency` at a time; after a failure it starts no more, and returns once all have stopped. */
export async function eachConcurrently<T>(values: readonly T[], concurrency: number, task: (value: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < values.length) {
      try {
        await task(values[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, values.length) }, worker));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
}
