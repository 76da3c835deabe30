// Part of stage 4, write: creating the files. Each new file costs four system calls (open, write,
// close, rename). Made from the main thread through libuv's pool, every call also costs the main
// thread a dispatch and a callback: about a quarter of a large build's main-thread time
// (measured). Instead, worker threads create the files with synchronous calls, on the second
// core, while the main thread renders the next ones.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Files to create, their bytes packed end to end in one buffer that moves to the thread. */
export interface Batch {
  /** Absolute paths, checked by the caller to be inside the output folder (or a staging folder). */
  targets: string[];
  /**
   * Per file: written in place, without a temporary file, because it is in a folder that is not
   * in the output yet and moves in whole once complete.
   */
  inPlace: boolean[];
  /** Where each file's bytes end in `bytes`. */
  ends: number[];
  bytes: Uint8Array;
  /**
   * Leave a file alone when it already holds these bytes: after an interrupted build the
   * bookkeeping cannot say what is there.
   */
  compare: boolean;
}

/** The smallest buffer a batch gets: most batches fit, so buffers are rarely made. */
const MIN_BUFFER = 1 << 20;

/** What a thread keeps between batches. */
interface ThreadState {
  /** Folders this thread made (or found) already: one mkdir each. */
  madeDirs: Set<string>;
  /** Makes temporary names unique between threads and within one. */
  prefix: string;
  count: number;
  /** The end of temporary names, so that the next build can sweep up leftovers. */
  suffix: string;
}

/**
 * Creates the files of a batch, each atomically (a temporary file beside it, then a rename, so
 * it is never seen half-written); returns which ones it wrote. It runs inside worker threads as
 * the text of this function, so it may use only its arguments.
 */
function createFiles(batch: Batch, state: ThreadState, fsModule: typeof fs, pathModule: typeof path): boolean[] {
  const written: boolean[] = [];
  let start = 0;
  for (let i = 0; i < batch.targets.length; i++) {
    const target = batch.targets[i]!;
    const bytes = batch.bytes.subarray(start, batch.ends[i]);
    start = batch.ends[i]!;
    if (batch.compare) {
      let there: Buffer | undefined;
      try {
        there = fsModule.readFileSync(target);
      } catch {
        there = undefined;
      }
      if (there?.equals(bytes)) {
        written.push(false);
        continue;
      }
    }
    const dir = pathModule.dirname(target);
    if (!state.madeDirs.has(dir)) {
      fsModule.mkdirSync(dir, { recursive: true });
      state.madeDirs.add(dir);
    }
    if (batch.inPlace[i]) {
      fsModule.writeFileSync(target, bytes);
    } else {
      const scratch = `${target}.${state.prefix}${state.count++}${state.suffix}`;
      fsModule.writeFileSync(scratch, bytes);
      fsModule.renameSync(scratch, target);
    }
    written.push(true);
  }
  return written;
}

/** The thread's whole program: batches in, which files it wrote (or the error) out. */
const THREAD_SOURCE = `
const fs = require('node:fs');
const path = require('node:path');
const { parentPort, workerData, threadId } = require('node:worker_threads');
const createFiles = ${createFiles.toString()};
const state = { madeDirs: new Set(), prefix: 't' + threadId + '-', count: 0, suffix: workerData.suffix };
parentPort.on('message', ({ id, batch }) => {
  try {
    const written = createFiles(batch, state, fs, path);
    parentPort.postMessage({ id, written, bytes: batch.bytes }, [batch.bytes.buffer]);
  } catch (error) {
    const reply = { id, bytes: batch.bytes, error: { message: String(error && error.message), code: error && error.code } };
    parentPort.postMessage(reply, [batch.bytes.buffer]);
  }
});
`;

export interface FileCreator {
  /** A new batch of files to create; `compare` as in Batch. */
  batch(compare: boolean): BatchBuilder;
  /** Ends the threads; call it whatever happened. */
  close(): Promise<void>;
}

/**
 * Files added one by one, each encoded into the batch's buffer as soon as it is rendered: the
 * rendered text dies young, and the bytes are hashed where they will be written from.
 */
export interface BatchBuilder {
  /** Adds a file (see Batch.inPlace); returns its bytes, a view into the batch that is valid until `send`. */
  add(target: string, body: string | Uint8Array, inPlace: boolean): Uint8Array;
  /** Takes the last file added out again (its bytes turned out to be there already). */
  dropLast(): void;
  /** Creates the files; resolves to which ones were written. Call it even for an empty batch. */
  send(): Promise<boolean[]>;
}

interface Reply {
  id: number;
  written?: boolean[];
  /** The batch's buffer, handed back to be filled again. */
  bytes: Uint8Array;
  error?: { message: string; code?: string };
}

/**
 * `threads` worker threads that create files; with 0, files are created on the calling thread
 * by the same code (small builds, where starting threads costs more than it saves).
 */
export function startFileCreator(threads: number, suffix: string): FileCreator {
  // Buffers handed back by the threads, filled again for the next batches: a build holds a few
  // megabytes for its writes, whatever the size of the addon. One that grew for a batch of large
  // files (catalog pages) is kept while such batches fill at least half of it; the small files
  // after them would leave it mostly empty to the end of the build (26 MB of buffers, measured).
  const spare: Buffer[] = [];
  const giveBack = (buffer: Buffer, used: number) => {
    if (buffer.length <= MIN_BUFFER || used >= buffer.length / 2) spare.push(buffer);
  };
  const usedBy = (batch: Batch) => batch.ends[batch.ends.length - 1] ?? 0;
  const take = (size: number) => {
    const reused = spare.findIndex((b) => b.length >= size);
    return reused >= 0 ? spare.splice(reused, 1)[0]! : Buffer.allocUnsafeSlow(Math.max(size, MIN_BUFFER));
  };
  const builder = (compare: boolean, create: (batch: Batch) => Promise<boolean[]>): BatchBuilder => {
    let buffer = take(0);
    const targets: string[] = [];
    const inPlace: boolean[] = [];
    const ends: number[] = [];
    const end = () => ends[ends.length - 1] ?? 0;
    return {
      add(target, body, placed) {
        const start = end();
        // UTF-8 takes at most three bytes per UTF-16 unit: grow before writing, never truncate.
        const most = typeof body === 'string' ? body.length * 3 : body.length;
        if (buffer.length - start < most) {
          // Doubling, and the smaller buffer left to the garbage collector: the few buffers in
          // use grow to the largest batch and stay that size.
          const larger = take(Math.max(2 * buffer.length, start + most));
          buffer.copy(larger, 0, 0, start);
          buffer = larger;
        }
        const length = typeof body === 'string' ? buffer.write(body, start) : (buffer.set(body, start), body.length);
        targets.push(target);
        inPlace.push(placed);
        ends.push(start + length);
        return buffer.subarray(start, start + length);
      },
      dropLast() {
        targets.pop();
        inPlace.pop();
        ends.pop();
      },
      send() {
        if (targets.length === 0) {
          giveBack(buffer, 0);
          return Promise.resolve([]);
        }
        return create({ targets, inPlace, ends, bytes: buffer, compare });
      },
    };
  };
  if (threads === 0) {
    const state: ThreadState = { madeDirs: new Set(), prefix: 'm-', count: 0, suffix };
    return {
      batch: (compare) =>
        builder(compare, async (batch) => {
          const written = createFiles(batch, state, fs, path);
          giveBack(batch.bytes as Buffer, usedBy(batch));
          return written;
        }),
      close: async () => {},
    };
  }
  const pending = new Map<number, { resolve(written: boolean[]): void; reject(error: Error): void; worker: Worker; used: number }>();
  const load = new Map<Worker, number>();
  let nextId = 0;
  let failed: Error | undefined;
  const workers = Array.from({ length: threads }, () => {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { suffix } });
    load.set(worker, 0);
    worker.on('message', (reply: Reply) => {
      const job = pending.get(reply.id)!;
      giveBack(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.length), job.used);
      pending.delete(reply.id);
      load.set(worker, load.get(worker)! - 1);
      if (reply.error) job.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else job.resolve(reply.written!);
    });
    // A thread that dies (out of memory, say) fails the batches it had.
    worker.on('error', (error) => {
      failed = error;
      for (const [id, job] of pending) {
        if (job.worker !== worker) continue;
        pending.delete(id);
        job.reject(error);
      }
    });
    return worker;
  });
  const create = (batch: Batch) => {
    if (failed) return Promise.reject(failed);
    // The least busy thread; the buffer moves to it rather than being copied.
    const worker = workers.reduce((a, b) => (load.get(b)! < load.get(a)! ? b : a));
    load.set(worker, load.get(worker)! + 1);
    const id = nextId++;
    return new Promise<boolean[]>((resolve, reject) => {
      pending.set(id, { resolve, reject, worker, used: usedBy(batch) });
      worker.postMessage({ id, batch }, [batch.bytes.buffer as ArrayBuffer]);
    });
  };
  return {
    batch: (compare) => builder(compare, create),
    async close() {
      failed ??= new Error('the file creator was closed');
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
