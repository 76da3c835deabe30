// The files of the served tree, read without ever leaving it, and the ones sent lately kept in
// memory. A kept file costs a request one lstat instead of the open, the checks that the open
// file lies inside the tree, the read and the close; what it answers is still what the disk
// holds: an entry is used only while the name leads to the very file that was read, unchanged.
import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, constants, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { changedBefore } from '../shared/file-times.js';
import { isWithin } from '../shared/locations.js';

/** A file of the served tree, open (a descriptor the caller closes), and its size when opened. */
export interface OpenedFile {
  fd: number;
  size: number;
  info: BigIntStats;
}

/**
 * The file at `absolute` in the tree at `root`, open, if it is a regular file inside it: not a symlink, and not reached through a symlinked folder that leads out. Opened
 * first, then the opened file is checked: a check of the path before the open says nothing about
 * what the open finds when a folder of the tree is swapped for a symlink between the two.
 *
 * Synchronous: these are a handful of calls on a local folder that the kernel answers from its
 * caches, and each would cost a round trip through libuv's thread pool, several times what the
 * call itself does (bench/README.md, "serve"). O_NONBLOCK keeps a FIFO from holding the open.
 */
export function openInside(root: string, absolute: string): OpenedFile | undefined {
  if (!isWithin(root, absolute)) return undefined;
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink as the last name is refused, not followed (absent on Windows).
    fd = openSync(absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd, { bigint: true });
    if (info.isFile() && isInside(root, absolute, fd, info)) return { fd, size: Number(info.size), info };
  } catch {
    // Gone or changed while being checked: as if it were not there.
  }
  closeSync(fd);
  return undefined;
}

/**
 * Whether the open file `fd`, whose fstat is `info`, lies inside `root`. Linux names the file a
 * descriptor holds (/proc/self/fd), whatever its path has become since: no race is left. Without
 * /proc the path is resolved after the open and must lead, inside the tree, to the same file
 * (device and inode). That narrows the race but does not close it: a folder swapped for a symlink
 * at the open, back at the realpath and out again at the stat still passes (Node has no openat).
 */
function isInside(root: string, absolute: string, fd: number, info: BigIntStats): boolean {
  let where: string;
  try {
    where = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    where = realpathSync(absolute);
  }
  if (!isWithin(root, where)) return false;
  // The same file: also refuses a file deleted since the open, which /proc names `path (deleted)`.
  const there = statSync(where, { bigint: true });
  return there.dev === info.dev && there.ino === info.ino;
}

/** Bytes `start` to `end` of an open file, read at once: for the small files that most answers are. */
export function readPart(fd: number, start: number, end: number): Buffer {
  const bytes = Buffer.allocUnsafe(end - start + 1);
  let done = 0;
  while (done < bytes.length) {
    const read = readSync(fd, bytes, done, bytes.length - done, start + done);
    if (read === 0) break; // the file shrank since its fstat: send what there is, as a host would mid-deploy
    done += read;
  }
  return done === bytes.length ? bytes : bytes.subarray(0, done);
}

/** The text of a file of the tree, opened as openInside opens it; undefined when it is not one. */
export function readInside(root: string, file: string): string | undefined {
  const opened = openInside(root, path.resolve(root, ...file.split('/')));
  if (!opened) return undefined;
  try {
    return readPart(opened.fd, 0, opened.size - 1).toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
}

/** A file of the tree as it was read: its bytes and what identifies that state of it. */
interface Entry {
  bytes: Buffer;
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/**
 * Files larger than this are not kept, nor read whole: videos and large pages are streamed from
 * the disk each time, a slow client holding no more of them than the stream's buffer.
 */
export const KEPT_FILE_BYTES = 256 * 1024;
/** What a kept file costs beyond its bytes (its name, its entry, the buffer's object), counted against MAX_BYTES. */
const ENTRY_BYTES = 512;
/** All kept files together; the oldest go first. */
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * A file changed this recently is not kept: its times may not tell a same-size rewrite within the
 * same tick of the clock (shared/file-times.ts). (Linux since 6.13 stamps a file finely once its
 * times were read, as the open here does: there the rule only costs a newly written file its
 * first second in memory.)
 */
const SETTLED_MS = 1000;

export class FileCache {
  #entries = new Map<string, Entry>();
  #bytes = 0;

  /**
   * The bytes of the file at `absolute` (inside the tree, as openInside found it when it was
   * kept), if it is still that file: the same device and inode, reached without a symlink as the
   * last name (lstat), and not written, renamed, linked or changed in mode since (mtime, ctime).
   * A folder on the way swapped for a symlink out leads lstat to another file, or none. (A folder
   * moved out and linked back in leads to the same unchanged file: its bytes, read when it was
   * inside, are sent again; nothing read outside the tree is.)
   */
  get(absolute: string): Buffer | undefined {
    const entry = this.#entries.get(absolute);
    if (!entry) return undefined;
    let now: BigIntStats | undefined;
    try {
      now = lstatSync(absolute, { bigint: true, throwIfNoEntry: false });
    } catch {
      // A folder on the way replaced by a file, made unreadable, or a loop: as if it were gone.
    }
    if (now && now.isFile() && now.dev === entry.dev && now.ino === entry.ino && now.mtimeNs === entry.mtimeNs && now.ctimeNs === entry.ctimeNs)
      return entry.bytes;
    this.#drop(absolute, entry);
    return undefined;
  }

  /** Keeps the whole file just read from the open file whose fstat is `info`, when it is worth keeping. */
  set(absolute: string, bytes: Buffer, info: BigIntStats): void {
    if (bytes.length > KEPT_FILE_BYTES || BigInt(bytes.length) !== info.size) return;
    if (!changedBefore(info, SETTLED_MS)) return;
    const old = this.#entries.get(absolute);
    if (old) this.#drop(absolute, old);
    // Not a slice of Node's shared pool, which a kept file of a few bytes would hold 8 KiB of.
    const own = bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.allocUnsafeSlow(bytes.length);
    if (own !== bytes) bytes.copy(own);
    this.#entries.set(absolute, { bytes: own, dev: info.dev, ino: info.ino, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs });
    this.#bytes += ENTRY_BYTES + absolute.length + bytes.length;
    for (const [name, entry] of this.#entries) {
      if (this.#bytes <= MAX_BYTES) break;
      this.#drop(name, entry);
    }
  }

  #drop(name: string, entry: Entry): void {
    this.#entries.delete(name);
    this.#bytes -= ENTRY_BYTES + name.length + entry.bytes.length;
  }
}
