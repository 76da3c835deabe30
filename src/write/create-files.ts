// Part of stage 4, write: creating the files. Each new file costs four system calls (open, write,
// close, rename). Made from the main thread through libuv's pool, every call also costs the main
// thread a dispatch and a callback, a large share of its time. Instead, worker threads create the
// files with synchronous calls, on the second core, while the main thread renders the next ones.
// A file the last build wrote, rendered again at the same size, is read and left alone when it
// holds the same bytes. No file is hashed: hashing every file, for the few a rebuild renders again
// without changing them, costs every build CPU time. Figures: bench/README.md, 'Figures
// behind the code' ('Write threads', 'No hashes').
import fs from 'node:fs';
import path from 'node:path';
import { startThreadPool, threadProgram } from '../shared/thread-pool.js';

/** Files to create, their bytes packed end to end in one buffer that moves to the thread. */
export interface Batch {
  /** Absolute paths, checked by the caller to be inside the output folder (or a staging folder). */
  targets: string[];
  /**
   * Per file: written in place, without a temporary file, because it is in a folder that is not
   * in the output yet and moves in whole once complete.
   */
  inPlace: boolean[];
  /** Where each file's bytes start and end in `bytes`; files with the same bytes may share them. */
  starts: number[];
  ends: number[];
  bytes: Uint8Array;
  /**
   * Per file: the size of the bytes the last (complete) build wrote there, when the file is still
   * there; -1 when none. A file of the same size as its new bytes is compared with them, and left
   * alone when it holds them; any other is written.
   */
  lastSizes: number[];
  /**
   * Compare every file, whatever `lastSizes` says: after an interrupted build the bookkeeping
   * cannot say what is there.
   */
  compare: boolean;
  /**
   * Whether files may be written in the output folder yet. A build records what it may touch
   * there before its first write (startFileCreator's `beforeWrite`), and a build that changes
   * nothing records nothing: a batch sent before that record is made only compares, and if it
   * finds such a file to write it writes none and says so, to be sent again once the record is
   * made. Files written in place (in a staging folder) never wait: the output is not touched.
   */
  mayWrite: boolean;
}

/** What became of a batch's files: whether each one was written. */
export interface Created {
  written: boolean[];
}

/** The smallest buffer a batch gets: most batches fit, so buffers are rarely made. */
const MIN_BUFFER = 1 << 20;

/**
 * The bytes of the buffer each thread reads the files it compares into; a file as large or larger
 * is read into one of its own size. Catalog pages take a few tens of kilobytes.
 */
const READ_BUFFER = 1 << 20;

/** What a thread keeps between batches. */
interface ThreadState {
  /** Folders this thread made (or found) already: one mkdir each. */
  madeDirs: Set<string>;
  /**
   * What a file compared is read into, READ_BUFFER bytes, filled again for the next: a buffer made
   * per file read is memory outside V8's heap that a thread's collections free late, and a build
   * that compares many pages peaked tens of MiB higher (figures: bench/README.md, 'A whole build
   * over the last one's output').
   */
  readBuffer: Buffer;
  /** Makes temporary names unique between threads and within one. */
  prefix: string;
  count: number;
  /** The end of temporary names, so that the next build can sweep up leftovers. */
  suffix: string;
}

/**
 * Creates the files of a batch whose bytes are not there already, each atomically (a temporary
 * file beside it, then a rename, so it is never seen half-written). Returns which were written;
 * undefined when a file must be written in the output folder and the batch may not write there
 * yet (Batch.mayWrite), having written nothing there. It runs inside worker threads as the text
 * of this function, so it may use only its arguments.
 */
function createFiles(batch: Batch, state: ThreadState, fsModule: typeof fs, pathModule: typeof path): Created | undefined {
  const written: boolean[] = [];
  // A link at a file's path is not the file: it is written over, never read through; nor is a
  // FIFO (which would hold the open) or a file of another size (which is not the same bytes).
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fsModule.constants;
  const noFollow = O_RDONLY | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0);
  // Whether the open file holds `bytes` and no more (it may have grown since its size was read).
  const holds = (fd: number, bytes: Uint8Array): boolean => {
    const buffer = state.readBuffer;
    if (bytes.length >= buffer.length) return fsModule.readFileSync(fd).equals(bytes);
    let read = 0;
    while (read < bytes.length) {
      const got = fsModule.readSync(fd, buffer, read, bytes.length - read, null);
      if (got === 0) return false;
      read += got;
    }
    return buffer.subarray(0, read).equals(bytes) && fsModule.readSync(fd, buffer, 0, 1, null) === 0;
  };
  for (let i = 0; i < batch.targets.length; i++) {
    const target = batch.targets[i]!;
    const bytes = batch.bytes.subarray(batch.starts[i], batch.ends[i]);
    let there = false;
    if (batch.compare || batch.lastSizes[i] === bytes.length) {
      let fd: number | undefined;
      try {
        fd = fsModule.openSync(target, noFollow);
        const info = fsModule.fstatSync(fd);
        there = info.isFile() && info.size === bytes.length && holds(fd, bytes);
      } catch {
        // Not there (or not a file): written.
      } finally {
        if (fd !== undefined) fsModule.closeSync(fd);
      }
    }
    if (there) {
      written.push(false);
      continue;
    }
    // The files compared so far are compared again when the batch comes back: this happens to
    // the first batches with a change only, before the record is made.
    if (!batch.mayWrite && !batch.inPlace[i]) return undefined;
    let scratch: string | undefined;
    try {
      const dir = pathModule.dirname(target);
      if (!state.madeDirs.has(dir)) {
        fsModule.mkdirSync(dir, { recursive: true });
        state.madeDirs.add(dir);
      }
      // In place only in the staging folder, where every file is new: a file found in the output
      // folder may be a hard link that another tree shares (link-output.ts), so it is replaced.
      if (batch.inPlace[i]) {
        fsModule.writeFileSync(target, bytes);
      } else {
        scratch = `${target}.${state.prefix}${state.count++}${state.suffix}`;
        // `wx`: never through a link someone left at the temporary name; an earlier build's
        // leftover of the same name goes first.
        try {
          fsModule.writeFileSync(scratch, bytes, { flag: 'wx' });
        } catch (error) {
          if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
          fsModule.rmSync(scratch, { force: true });
          fsModule.writeFileSync(scratch, bytes, { flag: 'wx' });
        }
        fsModule.renameSync(scratch, target);
        scratch = undefined;
      }
    } catch (error) {
      // No temporary file stays behind (disk full, say), and the error names the file: a
      // failed write() says nothing of which one it was.
      if (scratch !== undefined) fsModule.rmSync(scratch, { force: true });
      if (error instanceof Error && !('path' in error)) Object.assign(error, { path: target });
      throw error;
    }
    written.push(true);
  }
  return { written };
}

/** The thread's program: batches in, what it made of them out; each batch's buffer moves back. */
const THREAD_PROGRAM = threadProgram(`
const fs = require('node:fs');
const path = require('node:path');
const createFiles = ${createFiles.toString()};
const state = { madeDirs: new Set(), readBuffer: Buffer.allocUnsafeSlow(workerData.readBuffer), prefix: 't' + threadId + '-', count: 0, suffix: workerData.suffix };
const handle = (batch) => ({ result: { created: createFiles(batch, state, fs, path), bytes: batch.bytes }, transfer: [batch.bytes.buffer] });
`);

export interface FileCreator {
  /** A new batch of files to create; `compare` as in Batch. */
  batch(compare: boolean): BatchBuilder;
  /** Ends the threads; call it whatever happened. */
  close(): Promise<void>;
}

/**
 * Files added one by one, each encoded into the batch's buffer as soon as it is rendered: the
 * rendered text dies young, and the bytes move to the thread that writes them.
 */
export interface BatchBuilder {
  /**
   * Adds a file (see Batch.inPlace, and Batch.lastSizes for `lastSize`, -1 or left out for
   * none); returns the number of its bytes. A body that is the text of the file added last shares
   * its bytes: encoded once (a catalog page in both extra orders).
   */
  add(target: string, body: string | Uint8Array, inPlace: boolean, lastSize?: number): number;
  /**
   * Creates the files that are not there already; resolves to whether each one was written.
   * Call it even for an empty batch.
   */
  send(): Promise<Created>;
}

/** What running a batch came to (see createFiles), with the batch's buffer handed back. */
interface Ran {
  created: Created | undefined;
  bytes: Buffer;
}
/** Runs a batch on a thread, or on the calling thread. */
type Run = (batch: Batch) => Promise<Ran>;

/**
 * Buffers handed back by the threads, filled again for the next batches: a build holds a few
 * megabytes for its writes, whatever the size of the addon. One that grew for a batch of large
 * files (catalog pages) is kept while such batches fill at least half of it; the small files
 * after them would leave it mostly empty to the end of the build (figures: bench/README.md, 'Write
 * buffers').
 */
interface BufferPool {
  /** A buffer of at least `size` bytes. */
  take(size: number): Buffer;
  giveBack(buffer: Buffer, used: number): void;
}

function bufferPool(): BufferPool {
  const spare: Buffer[] = [];
  return {
    take(size) {
      const reused = spare.findIndex((b) => b.length >= size);
      return reused >= 0 ? spare.splice(reused, 1)[0]! : Buffer.allocUnsafeSlow(Math.max(size, MIN_BUFFER));
    },
    giveBack(buffer, used) {
      if (buffer.length <= MIN_BUFFER || used >= buffer.length / 2) spare.push(buffer);
    },
  };
}

/** Whether batches may write in the output folder yet (see Batch.mayWrite). */
interface WriteGate {
  /** Set once `beforeWrite` has resolved: from then on every batch may write. */
  writable: boolean;
  /** Awaits `beforeWrite`, then sets `writable`. */
  allow(): Promise<void>;
}

function writeGate(beforeWrite: () => Promise<void>): WriteGate {
  const gate: WriteGate = {
    writable: false,
    async allow() {
      await beforeWrite();
      gate.writable = true;
    },
  };
  return gate;
}

/** A batch that encodes each file into a pooled buffer as it is added, and runs with `run` when sent. */
function batchBuilder(compare: boolean, run: Run, pool: BufferPool, gate: WriteGate): BatchBuilder {
  let buffer = pool.take(0);
  const targets: string[] = [];
  const inPlace: boolean[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const lastSizes: number[] = [];
  const end = () => ends[ends.length - 1] ?? 0;
  let lastBody: string | Uint8Array | undefined;
  return {
    add(target, body, placed, lastSize = -1) {
      targets.push(target);
      inPlace.push(placed);
      lastSizes.push(lastSize);
      if (typeof body === 'string' && body === lastBody) {
        const start = starts[starts.length - 1]!;
        const stop = end();
        starts.push(start);
        ends.push(stop);
        return stop - start;
      }
      lastBody = body;
      const start = end();
      // UTF-8 takes at most three bytes per UTF-16 unit: grow before writing, never truncate.
      const most = typeof body === 'string' ? body.length * 3 : body.length;
      if (buffer.length - start < most) {
        // Doubling, and the smaller buffer left to the garbage collector: the few buffers in
        // use grow to the largest batch and stay that size.
        const larger = pool.take(Math.max(2 * buffer.length, start + most));
        buffer.copy(larger, 0, 0, start);
        buffer = larger;
      }
      const length = typeof body === 'string' ? buffer.write(body, start) : (buffer.set(body, start), body.length);
      starts.push(start);
      ends.push(start + length);
      return length;
    },
    async send() {
      if (targets.length === 0) {
        pool.giveBack(buffer, 0);
        return { written: [] };
      }
      // A batch with a file that is written in the output folder for sure (one of another size
      // than the last build wrote there, or any after an interrupted build) waits for the
      // record; the others go at once, and come back unwritten if they find a change there
      // before it is made.
      const sure = (i: number) => !inPlace[i] && (compare || lastSizes[i] !== ends[i]! - starts[i]!);
      if (!gate.writable && targets.some((_, i) => sure(i))) await gate.allow();
      const batch: Batch = { targets, inPlace, starts, ends, lastSizes, bytes: buffer, compare, mayWrite: gate.writable };
      let { created, bytes } = await run(batch);
      if (!created) {
        await gate.allow();
        ({ created, bytes } = await run({ ...batch, bytes, mayWrite: true }));
        // A batch that may write always comes back done.
        if (!created) throw new Error('a batch that may write came back undone');
      }
      pool.giveBack(bytes, end());
      return created;
    },
  };
}

/** Files created on the calling thread, by the same code as the threads' (see startFileCreator). */
function creatorOnThisThread(suffix: string, pool: BufferPool, gate: WriteGate): FileCreator {
  const state: ThreadState = { madeDirs: new Set(), readBuffer: Buffer.allocUnsafeSlow(READ_BUFFER), prefix: 'm-', count: 0, suffix };
  // The batch's buffer is the one the builder filled: the pool's, a Buffer.
  const run: Run = async (batch) => ({ created: createFiles(batch, state, fs, path), bytes: asBuffer(batch.bytes) });
  return {
    batch: (compare) => batchBuilder(compare, run, pool, gate),
    close: async () => {},
  };
}

/** The bytes as a Buffer, without a copy. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** `threads` worker threads that create the files of the batches sent to them, the least busy first. */
function creatorInThreads(threads: number, suffix: string, pool: BufferPool, gate: WriteGate): FileCreator {
  // A thread's reply: the bytes come back as a Uint8Array over the buffer that moved.
  const workers = startThreadPool<Batch, { created: Created | undefined; bytes: Uint8Array }>({
    threads,
    program: THREAD_PROGRAM,
    workerData: { suffix, readBuffer: READ_BUFFER },
  });
  const run: Run = async (batch) => {
    const { buffer } = batch.bytes;
    // The pool's buffers are made by Buffer.allocUnsafeSlow: never shared memory.
    if (!(buffer instanceof ArrayBuffer)) throw new Error("a batch's bytes are in shared memory, which cannot move to a thread");
    // The buffer moves to the thread rather than being copied, and back with the reply.
    const { created, bytes } = await workers.run(batch, [buffer]);
    return { created, bytes: asBuffer(bytes) };
  };
  return {
    batch: (compare) => batchBuilder(compare, run, pool, gate),
    close: () => workers.close(),
  };
}

/**
 * `threads` worker threads that create files; with 0, files are created on the calling thread
 * by the same code (small builds, where starting threads costs more than it saves).
 * `beforeWrite` is awaited before the first file is written in the output folder, not in place
 * (it is called again by batches that find files to write before it resolves: it must return
 * the same promise each time).
 */
export function startFileCreator(threads: number, suffix: string, beforeWrite: () => Promise<void>): FileCreator {
  const pool = bufferPool();
  const gate = writeGate(beforeWrite);
  return threads === 0 ? creatorOnThisThread(suffix, pool, gate) : creatorInThreads(threads, suffix, pool, gate);
}
