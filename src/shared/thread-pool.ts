// Worker threads that answer requests, written once for what uses them: the parse of item files
// (load/parse-threads.ts), the creation of output files (write/create-files.ts) and serve's second
// tree of links (write/link-output.ts).
// The thread's program is source text, evaluated by the Worker: `threadProgram` wraps a setup
// snippet that defines the thread's `handle` in the one message loop; `startThreadPool` starts the
// threads and sends each request to the least busy one.
import { type Transferable, Worker } from 'node:worker_threads';

/**
 * The whole program of a thread, from a `setup` snippet of JavaScript that defines
 * `handle(request)`, returning `{ result, transfer }` (`transfer`, optional, lists what moves to
 * the main thread with the result rather than being copied). The snippet may use `parentPort`,
 * `workerData`, `threadId` and `require`. An error thrown by `handle` goes back to the run that
 * sent the request, with its message and system fields (code, syscall, path).
 */
export function threadProgram(setup: string): string {
  return `
const { parentPort, workerData, threadId } = require('node:worker_threads');
${setup}
parentPort.on('message', ({ id, request }) => {
  let reply;
  let transfer = [];
  try {
    const done = handle(request);
    reply = { id, result: done.result };
    transfer = done.transfer || [];
  } catch (error) {
    reply = { id, error: { message: String(error && error.message), code: error && error.code, syscall: error && error.syscall, path: error && error.path } };
  }
  parentPort.postMessage(reply, transfer);
});
`;
}

/** An error a thread's `handle` threw, as much of it as crosses to the main thread. */
interface ThreadError {
  message: string;
  code?: string;
  syscall?: string;
  path?: string;
}

/** What a thread of `threadProgram` sends back for a request. */
type Reply<Result> = { id: number; result: Result; error?: undefined } | { id: number; error: ThreadError };

export interface ThreadPool<Request, Result> {
  /**
   * Sends `request` to the least busy thread (ties go to the first, so equally busy threads take
   * turns); resolves to its `handle`'s result. `transfer` moves rather than copies (the buffers of
   * the request). Rejects when the handler threw, and, once a thread has failed or the pool is
   * closed, at once.
   */
  run(request: Request, transfer?: readonly Transferable[]): Promise<Result>;
  /** Ends the threads. */
  close(): Promise<void>;
}

export interface ThreadPoolOptions {
  threads: number;
  /** The threads' program, made by `threadProgram`. */
  program: string;
  workerData?: unknown;
  /** The threads are never the reason the process stays alive (a caller may stop without `close`). */
  unref?: boolean;
}

/**
 * `threads` worker threads running `program`. `Result` is what the program's `handle` returns:
 * the pool's caller writes both, so the replies are typed here, where they arrive.
 */
export function startThreadPool<Request, Result>(options: ThreadPoolOptions): ThreadPool<Request, Result> {
  const pending = new Map<number, { resolve(result: Result): void; reject(error: Error): void; thread: number }>();
  const load: number[] = [];
  let nextId = 0;
  let failed: Error | undefined;
  const workers: Worker[] = [];
  const start = (thread: number) => {
    const worker = new Worker(options.program, { eval: true, workerData: options.workerData });
    if (options.unref) worker.unref();
    load.push(0);
    worker.on('message', (reply: Reply<Result>) => {
      const job = pending.get(reply.id)!;
      pending.delete(reply.id);
      load[thread]!--;
      if (reply.error) {
        const { message, ...system } = reply.error;
        job.reject(Object.assign(new Error(message), system));
        return;
      }
      job.resolve(reply.result);
    });
    // A thread that dies (out of memory, say) fails the jobs it had, and every later one; one that
    // ends without an error too, or they would wait for good.
    const fail = (error: Error) => {
      failed ??= error;
      for (const [id, job] of pending) {
        if (job.thread !== thread) continue;
        pending.delete(id);
        job.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('a worker thread stopped')));
    return worker;
  };
  try {
    for (let thread = 0; thread < options.threads; thread++) workers.push(start(thread));
  } catch (error) {
    // The threads already started would keep the process alive.
    for (const worker of workers) void worker.terminate();
    throw error;
  }
  return {
    run(request, transfer) {
      if (failed) return Promise.reject(failed);
      let thread = 0;
      for (let i = 1; i < load.length; i++) if (load[i]! < load[thread]!) thread = i;
      load[thread]!++;
      const id = nextId++;
      return new Promise<Result>((resolve, reject) => {
        pending.set(id, { resolve, reject, thread });
        workers[thread]!.postMessage({ id, request }, transfer);
      });
    },
    async close() {
      failed ??= new Error('the worker threads were closed');
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
