// Part of stage 4, write: a second output folder made from a complete one by hard links, for
// serve's two trees (serve/watch.ts). A build into the copy then writes only the files whose
// bytes change, not a whole tree. The files of the first stay as they are: a build never writes
// into a file it finds there, it writes a new file and renames it over the name (create-files.ts),
// and removes a file by its name; both change the copy's names only.
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { startThreadPool, threadProgram, type ThreadPool } from '../shared/thread-pool.js';
import { filesOf, readStateFile, stateFileOf } from './state.js';

/**
 * Two threads make the links with synchronous calls, in batches: a quarter of a million took
 * half the time they took from the event loop, eight at a time, and serve answers meanwhile
 * (figures: bench/README.md, 'Links made by threads').
 */
const THREADS = 2;
const BATCH_FILES = 512;

/** A batch of links: each of `files` (plain relative paths, from the bookkeeping) from `from` to `to`. */
interface LinkBatch {
  from: string;
  to: string;
  files: string[];
}

/** Each thread makes a folder once, then the links into it. */
const LINK_PROGRAM = threadProgram(`
const fs = require('node:fs');
const path = require('node:path');
const made = new Set();
const handle = ({ from, to, files }) => {
  for (const file of files) {
    const dir = path.dirname(file);
    if (dir !== '.' && !made.has(dir)) {
      fs.mkdirSync(path.join(to, dir), { recursive: true });
      made.add(dir);
    }
    fs.linkSync(path.join(from, file), path.join(to, file));
  }
  return { result: files.length };
};
`);

/**
 * Makes the empty folder `to` hold the files of the complete build in `from`, each a hard link to
 * the same file, and its bookkeeping a copy of `from`'s (kept beside `to`, as it is beside `from`).
 * Returns whether it did. When it cannot (a file system without hard links, a build in `from` not
 * complete, `to` not empty) or is stopped by `signal`, it removes what it made: the next build into
 * `to` writes a whole tree.
 */
export async function linkOutput(from: string, to: string, signal?: AbortSignal): Promise<boolean> {
  const read = await readStateFile(from);
  if (!read || read.inside || read.state.complete === false) return false;
  if ((await readdir(to).catch(() => [])).length > 0) return false;
  const files = [...filesOf(read.state).keys()];
  let next = 0;
  let failed = false;
  let links: ThreadPool<LinkBatch, number> | undefined;
  // Two batches in flight per thread, so that neither waits for the next. Each stops at the first
  // failure of any, so that none is still linking when what was made is removed.
  const sender = async (pool: ThreadPool<LinkBatch, number>) => {
    while (!failed && !signal?.aborted && next < files.length) {
      const batch = files.slice(next, (next += BATCH_FILES));
      await pool.run({ from, to, files: batch }).catch(() => (failed = true));
    }
  };
  try {
    const pool = (links = startThreadPool<LinkBatch, number>({ threads: THREADS, program: LINK_PROGRAM }));
    await mkdir(to, { recursive: true });
    await Promise.all(Array.from({ length: 2 * THREADS }, () => sender(pool)));
    // Last: links without bookkeeping would be files the next build does not know.
    if (!failed && !signal?.aborted) await copyFile(stateFileOf(from), stateFileOf(to));
  } catch {
    failed = true;
  } finally {
    await links?.close().catch(() => {});
  }
  failed ||= signal?.aborted === true;
  if (failed) await Promise.all([rm(to, { recursive: true, force: true }), rm(stateFileOf(to), { force: true })]).catch(() => {});
  return !failed;
}
