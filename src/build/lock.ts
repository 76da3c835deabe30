// Part of stage 4, write: one build at a time per output folder. Two builds at once would share a
// staging folder and bookkeeping, and one could end with a partial tree.
import { randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode, IoError, ioFailure } from '../diagnostics/index.js';
import { besideOutput } from '../shared/locations.js';
import { isCount, isObject, isString } from '../shared/fields.js';

/** The end of the lock file's name beside the output folder: `.dist.addon-gen.lock` for `dist`. */
const LOCK_SUFFIX = '.addon-gen.lock';
/** Its name inside the output folder, while the folder above cannot be written. */
export const LOCK_FILE_INSIDE = '.addon-gen.lock';
/** How long a build waits for another one that works on the same folder, and how often it looks. */
const LOCK_WAIT_MS = 10 * 60 * 1000;
const LOCK_POLL_MS = 100;
/** A lock file that is not JSON this long after it was made was cut off while being written. */
const HALF_WRITTEN_MS = 10_000;

/** Why a folder cannot be written in: permissions, or a read-only file system. */
export const CANNOT_WRITE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** What a lock file holds: the process that holds it. */
interface LockHolder {
  pid: number;
  host: string;
}

function isLockHolder(value: unknown): value is LockHolder {
  return isObject(value) && isCount(value.pid) && value.pid > 0 && isString(value.host);
}

/**
 * By output folder, the end of the queue of this process's builds into it. Builds run through
 * the library may share a process: they take turns here before any of them looks at the lock
 * file, so a lock file naming this process is never one of its own builds' but an earlier
 * holder's whose process number it has now. The one piece of state kept between calls.
 */
const queues = new Map<string, Promise<void>>();

/**
 * Holds `outDir` for one build until the returned function is called: a second build into the
 * same folder waits for the first (up to LOCK_WAIT_MS, then fails clearly). The lock is a file
 * beside the folder (inside while the folder above cannot be written) naming the process; a lock
 * whose process on this machine is gone (killed) is taken over at once, and one held on another
 * machine (a shared folder, a container that had another name) is refused at once, with the file
 * to remove. Not proper-lockfile: it judges a lock stale by a timestamp refreshed on a timer,
 * which a build's main thread, busy for seconds planning a large addon, would let lapse.
 */
export async function lockOutput(outDir: string): Promise<() => Promise<void>> {
  const root = path.resolve(outDir);
  const before = queues.get(root);
  let leave!: () => void;
  const turn = new Promise<void>((resolve) => (leave = resolve));
  const end = (before ?? Promise.resolve()).then(() => turn);
  queues.set(root, end);
  const done = () => {
    leave();
    if (queues.get(root) === end) queues.delete(root);
  };
  await before;
  try {
    const unlock = await lockFile(root);
    return async () => {
      await unlock();
      done();
    };
  } catch (error) {
    done();
    throw error;
  }
}

/** Holds the lock file of `root` for this process (see lockOutput). */
async function lockFile(root: string): Promise<() => Promise<void>> {
  const owner = JSON.stringify({ pid: process.pid, host: os.hostname() });
  let file = besideOutput(root, LOCK_SUFFIX);
  const deadline = Date.now() + LOCK_WAIT_MS;
  // The folders made to hold the lock beside an output folder whose parents are not there yet:
  // removed with the lock while still empty (a build that fails leaves nothing behind).
  let made: string | undefined;
  let making = false;
  const removeMade = async () => {
    for (let dir = path.dirname(root); made !== undefined && dir.startsWith(made); dir = path.dirname(dir)) {
      if (
        !(await rmdir(dir).then(
          () => true,
          () => false,
        ))
      )
        return;
    }
  };
  const fail = async (error: Error) => {
    await removeMade();
    return error;
  };
  for (;;) {
    try {
      const handle = await open(file, 'wx');
      try {
        await handle.writeFile(owner);
        await handle.close();
      } catch (error) {
        await handle.close().catch(() => {});
        await rm(file, { force: true }).catch(() => {});
        throw error;
      }
      const held = file;
      // Tidying only: whatever it meets, the lock is held.
      await removeLeftAside(held, owner).catch(() => {});
      return async () => {
        // Only its own: a lock taken over as abandoned (wrongly, by a process that could not
        // tell) is not removed under its new holder.
        if ((await readFile(held, 'utf8').catch(() => undefined)) === owner) await rm(held, { force: true }).catch(() => {});
        await removeMade();
      };
    } catch (error) {
      const code = errorCode(error);
      if (CANNOT_WRITE.has(code) && file !== path.join(root, LOCK_FILE_INSIDE)) {
        // Beside is out of reach; inside, if the folder is there. If it is not, it cannot be
        // made either, and the write will say so: nothing to hold.
        if (!(await stat(root).catch(() => undefined))?.isDirectory()) return async () => {};
        file = path.join(root, LOCK_FILE_INSIDE);
        continue;
      }
      if (code === 'ENOENT' && !making) {
        making = true;
        made = await mkdir(path.dirname(root), { recursive: true }).catch(() => undefined);
        continue;
      }
      if (code !== 'EEXIST') throw await fail(ioFailure(error, 'Nothing was written.', file));
    }
    const holder = await holderOf(file);
    if (holder.kind === 'gone') continue;
    if (holder.kind === 'abandoned' && (await takeOver(file, holder.text))) continue;
    if (holder.kind === 'elsewhere') {
      throw await fail(
        new IoError(
          `${file} says that a build on the machine "${holder.host}" (process ${holder.pid}) is writing into ${root}. Nothing was written; if no build runs there, remove ${file} and build again`,
          file,
        ),
      );
    }
    if (holder.kind === 'unreadable' || Date.now() > deadline) {
      const why = holder.kind === 'unreadable' ? `cannot be read (${holder.why})` : `has been held for ${LOCK_WAIT_MS / 60000} minutes`;
      throw await fail(
        new IoError(`the lock ${file} of ${root} ${why}. Nothing was written; if no build runs, remove ${file} and build again`, file),
      );
    }
    await sleep(LOCK_POLL_MS);
  }
}

type Holder =
  /** Released since the open failed: try again at once. */
  | { kind: 'gone' }
  /** Held by a live process of this machine, or being written: wait. */
  | { kind: 'held' }
  /** Left by a process of this machine that is gone, or cut off while being written. */
  | { kind: 'abandoned'; text: string }
  | { kind: 'elsewhere'; host: string; pid: number }
  /** Not a file that can be read: a folder, a broken link, another user's. */
  | { kind: 'unreadable'; why: string };

/** Who holds the lock `file`, as far as this process can tell. */
async function holderOf(file: string): Promise<Holder> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    // Not there to read, and yet there to open: a link that leads nowhere.
    if (code === 'ENOENT') return (await lstat(file).catch(() => undefined)) ? { kind: 'unreadable', why: 'a broken link' } : { kind: 'gone' };
    return { kind: 'unreadable', why: code || String(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
    return age > HALF_WRITTEN_MS ? { kind: 'abandoned', text } : { kind: 'held' };
  }
  if (!isLockHolder(json)) return { kind: 'unreadable', why: 'not a lock of addon-gen' };
  const { pid, host } = json;
  if (host !== os.hostname()) return { kind: 'elsewhere', host, pid };
  // This process's own builds take turns before they look (see queues): not one of theirs.
  return pid !== process.pid && isAlive(pid) ? { kind: 'held' } : { kind: 'abandoned', text };
}

/**
 * Removes the abandoned lock `file`, which held `text`, unless another process took it over
 * first: it is moved aside under a name of this process's own, and removed only if it still holds
 * `text`. Returns whether the lock is free now (or was taken by another, which the next try sees).
 */
async function takeOver(file: string, text: string): Promise<boolean> {
  const aside = `${file}.${randomUUID()}`;
  if (
    !(await rename(file, aside).then(
      () => true,
      () => false,
    ))
  )
    return true;
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  if (moved !== text) {
    // A new holder's lock, made since it was judged: put back unless another took its place.
    await link(aside, file).catch(() => {});
  }
  await rm(aside, { force: true }).catch(() => {});
  return true;
}

/** The end of a name takeOver moves a lock aside under: `.<uuid>`. */
const ASIDE = /^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Removes the locks takeOver moved aside beside `file` and did not get to remove (its process was
 * killed in between), when their holder is gone as a lock's would be. One that names a live
 * holder may be a new lock another process is putting back; so may one naming this process
 * (`owner`, the lock just taken), which holderOf counts as gone.
 */
async function removeLeftAside(file: string, owner: string): Promise<void> {
  const dir = path.dirname(file);
  const name = path.basename(file);
  for (const entry of await readdir(dir).catch(() => [])) {
    if (!entry.startsWith(name) || !ASIDE.test(entry.slice(name.length))) continue;
    const aside = path.join(dir, entry);
    const holder = await holderOf(aside);
    if (holder.kind === 'abandoned' && holder.text !== owner) await rm(aside, { force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // there, but another user's
  }
}
