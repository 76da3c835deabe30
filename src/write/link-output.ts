// Part of stage 4, write: a second output folder made from a complete one by hard links, for
// serve's two trees (serve/watch.ts). A build into the copy then writes only the files whose
// bytes change, not a whole tree. The files of the first stay as they are: a build never writes
// into a file it finds there, it writes a new file and renames it over the name (create-files.ts),
// and removes a file by its name; both change the copy's names only.
import { copyFile, link, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { inside } from './paths.js';
import { filesOf, readStateFile, stateFileOf } from './state.js';

/** Links at a time: enough to keep libuv's thread pool busy, few enough to leave it to requests. */
const CONCURRENCY = 8;

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
  // Each folder made once, and waited for by every link into it.
  const made = new Map<string, Promise<unknown>>();
  let next = 0;
  let failed = false;
  // Each stops at the first failure of any, so that none is still linking when what was made is removed.
  const worker = async () => {
    while (!failed && !signal?.aborted && next < files.length) {
      const file = files[next++]!;
      const dir = path.posix.dirname(file);
      try {
        if (dir !== '.') {
          if (!made.has(dir)) made.set(dir, mkdir(inside(to, dir), { recursive: true }));
          await made.get(dir);
        }
        await link(inside(from, file), inside(to, file));
      } catch {
        failed = true;
      }
    }
  };
  try {
    await mkdir(to, { recursive: true });
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // Last: links without bookkeeping would be files the next build does not know.
    if (!failed) await copyFile(stateFileOf(from), stateFileOf(to));
  } catch {
    failed = true;
  }
  failed ||= signal?.aborted === true;
  if (failed) await Promise.all([rm(to, { recursive: true, force: true }), rm(stateFileOf(to), { force: true })]).catch(() => {});
  return !failed;
}
