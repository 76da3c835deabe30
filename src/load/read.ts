// Finds the content files below a content folder and reads them as text, within limits: links
// only within the folder, a size limit checked before reading, UTF-8 text only. Each file that
// cannot be read gives one diagnostic, never an exception.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { problem, type Diagnostic, type MessageParams } from '../diagnostics/index.js';
import { changedBefore } from '../shared/file-times.js';
import { isWithin } from '../shared/locations.js';
import { decode } from './text.js';

export const ADDON_FILE = 'addon.yaml';

/** The largest content file read, in bytes, unless `--max-file-size` says otherwise. */
export const DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024;

/** A content file's text, and where it is. */
export interface ContentText {
  /** The path as shown to people: the content folder as given, joined with the relative path. */
  file: string;
  /** Path relative to the content folder, with forward slashes. */
  relative: string;
  /** Where the file is, below the content folder as given (a link's target, for a followed link). */
  absolute: string;
  text: string;
  /**
   * A hash of the text (shared/fingerprint.ts, textFingerprint), once a build asks for it, or as
   * read when the text is decoded only when first used (readContentFiles with `only`).
   */
  textFingerprint?: string;
  /** The bytes are not UTF-8 text (binary, Latin-1): the file has a diagnostic and no values. */
  unreadable?: boolean;
}

/**
 * Every content file below `contentDir` in path order, with the problems of those that could
 * not be read. A file that is not text is returned too (`unreadable`), to show its bad line.
 * With `only`, the files it takes, each text decoded when first used (a CLI edit, build/edit.ts,
 * hashes every file a checkout rewrote and parses the few it changed).
 */
export async function readContentFiles(
  contentDir: string,
  maxFileSize: number,
  takes: (name: string) => boolean,
  only?: (relative: string) => boolean,
): Promise<{ files: ContentText[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const found = (await findContentFiles(contentDir, diagnostics, takes)).filter((file) => !only || only(file.relative));
  // The walk's order depends on the file system; path order makes builds reproducible.
  found.sort((a, b) => compareCodePoints(a.relative, b.relative));
  // Synchronous calls: the content files are local and few, and each call through libuv's thread
  // pool cost several times the call itself (bench/README.md, 'Content read synchronously').
  const read = found.map((f) => readSource(contentDir, f, maxFileSize, only !== undefined));
  const files: ContentText[] = [];
  for (const { source, problem } of read) {
    if (source) files.push(source);
    if (problem) diagnostics.push(problem);
  }
  return { files, diagnostics };
}

interface FoundFile {
  relative: string;
  /** The path to read: the file, or the real path of a followed link's target. */
  read: string;
  /** The path validate resolves local files from: below the content folder as given. */
  absolute: string;
}

/**
 * Every content file below the content folder (a name that `takes` takes: `*.yaml` and `*.yml`),
 * skipping names that start with `.` and `node_modules` folders. Symbolic links are followed only to files inside the folder: a
 * build must not read the rest of the machine. Links to folders are never followed (a link to a
 * folder inside would read its files twice, or loop); a link that leaves the folder gets a warning.
 */
async function findContentFiles(contentDir: string, diagnostics: Diagnostic[], takes: (name: string) => boolean): Promise<FoundFile[]> {
  const given = path.resolve(contentDir);
  const root = await realpath(given).catch(() => given);
  const inside = (real: string) => isWithin(root, real, { orSame: true });
  const shown = (relative: string) => path.join(contentDir, relative);
  const found: FoundFile[] = [];
  const problems: Diagnostic[] = [];

  const entry = async (relative: string, dirent: Dirent): Promise<string | undefined> => {
    const isContent = takes(dirent.name);
    if (dirent.isDirectory()) return relative;
    if (dirent.isFile()) {
      if (isContent) found.push({ relative, read: path.join(root, relative), absolute: path.join(given, relative) });
      return undefined;
    }
    if (!dirent.isSymbolicLink()) {
      if (isContent) problems.push(unreadable(shown(relative), { code: 'NOT_A_FILE' }, 'file'));
      return undefined;
    }
    const link = path.join(root, relative);
    let real: string;
    let isFolder: boolean;
    try {
      real = await realpath(link);
      isFolder = (await stat(real)).isDirectory();
    } catch (error) {
      // A broken link or a loop: an error for a content file, someone else's business otherwise.
      if (isContent) problems.push(unreadable(shown(relative), error, 'link', await readlinkText(link)));
      return undefined;
    }
    if (!inside(real)) {
      if (isContent || isFolder) problems.push(linkOutside(shown(relative), relative, await readlinkText(link), isFolder));
    } else if (isContent && !isFolder) {
      found.push({ relative, read: real, absolute: path.join(given, path.relative(root, real)) });
    }
    return undefined;
  };

  const walk = async (folder: string): Promise<void> => {
    let dirents: Dirent[];
    try {
      dirents = await readdir(path.join(root, folder), { withFileTypes: true });
    } catch (error) {
      if (folder === '') throw error; // the content folder itself: build checked it before
      problems.push(unreadable(shown(folder), error, 'folder'));
      return;
    }
    const visible = dirents.filter((d) => !d.name.startsWith('.') && d.name !== 'node_modules');
    const folders = await Promise.all(visible.map((d) => entry(folder ? `${folder}/${d.name}` : d.name, d)));
    await Promise.all(folders.filter((f): f is string => f !== undefined).map(walk));
  };
  await walk('');
  // Found concurrently: sorted, so that every run reports them in the same order.
  diagnostics.push(...problems.sort((a, b) => compareCodePoints(a.file!, b.file!)));
  return found;
}

async function readlinkText(link: string): Promise<string> {
  return readlink(link).catch(() => '?');
}

function linkOutside(file: string, relative: string, target: string, isFolder: boolean): Diagnostic {
  if (relative === ADDON_FILE) return problem('missing-addon-yaml', { kind: 'link-outside', target }, { file });
  return problem('symlink-not-followed', { target, folder: isFolder }, { file });
}

/** An unreadable file, folder or link: the reason in words, from the system's error code. */
function unreadable(file: string, error: unknown, kind: 'file' | 'folder' | 'link', target?: string): Diagnostic {
  return problem('unreadable-file', unreadableReason(error, kind, target), { file });
}

function unreadableReason(error: unknown, kind: 'file' | 'folder' | 'link', target = '?'): MessageParams<'unreadable-file'> {
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (kind === 'link') return { kind: code === 'ELOOP' ? 'link-loop' : 'link-broken', target };
  if (code === 'NOT_A_FILE') return { kind: 'not-a-file' };
  if (code === 'EACCES' || code === 'EPERM') return { kind: 'denied', what: kind };
  return { kind: 'failed', reason: `${messageOf(error) ?? code}` };
}

/** The error's message, as `error.message` gives it; undefined when it has none. */
function messageOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'message' in error ? error.message : undefined;
}

/**
 * Reads one file within the size limit: the size is checked on the open file before any byte is
 * read, and reading stops past the limit (a file that grows meanwhile). Bytes that are not YAML
 * text (NUL bytes, invalid UTF-8) give one problem for the file, which then has no values.
 */
function readSource(contentDir: string, found: FoundFile, maxFileSize: number, lazy = false): { source?: ContentText; problem?: Diagnostic } {
  const file = path.join(contentDir, found.relative);
  let bytes: Buffer | undefined;
  let stamp = '';
  let settled = false;
  let fd: number | undefined;
  const before = Date.now();
  try {
    // O_NONBLOCK: opening a named pipe must not hang the build (its type is refused below).
    fd = openSync(found.read, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    // In bigint: an inode number past 2^53 (overlayfs, some FUSE file systems) and times in ns.
    const info = fstatSync(fd, { bigint: true });
    if (!info.isFile()) return { problem: unreadable(file, { code: 'NOT_A_FILE' }, 'file') };
    const size = Number(info.size);
    if (size > maxFileSize) return { problem: tooLarge(file, size, maxFileSize) };
    bytes = readAtMost(fd, size, maxFileSize);
    if (bytes === undefined) return { problem: tooLarge(file, undefined, maxFileSize) };
    stamp = stampOf(info);
    settled = changedBefore(info, SETTLED_MS, before);
  } catch (error) {
    return { problem: unreadable(file, error, 'file') };
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
  const source: ContentText = { file, relative: found.relative, absolute: found.absolute, text: '' };
  firstReads.set(source, { read: found.read, bytes: bytes.length, stamp, settled });
  return { source, problem: decode(bytes, source, lazy) };
}

/** What identifies one state of a file: device, inode, size, and the times of its last change. */
function stampOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** A content file's stamp is trusted once its last change lies this long before it was read (shared/file-times.ts). */
const SETTLED_MS = 2000;

/**
 * The stamp of a file as read, when it was settled then (SETTLED_MS): a later build that finds the
 * same stamp (contentStamps) finds the same bytes without reading them.
 */
export function settledStamp(source: ContentText): string | undefined {
  const first = firstReads.get(source);
  return first?.settled ? first.stamp : undefined;
}

/**
 * The stamp of every content file below `contentDir`, in path order, found as readContentFiles
 * finds them; undefined when any of them could not be read (a link that leaves the folder, a
 * folder that cannot be listed): those are reported by reading the files.
 */
export async function contentStamps(contentDir: string, takes: (name: string) => boolean): Promise<[relative: string, stamp: string][] | undefined> {
  const problems: Diagnostic[] = [];
  const found = await findContentFiles(contentDir, problems, takes);
  if (problems.length > 0) return undefined;
  found.sort((a, b) => compareCodePoints(a.relative, b.relative));
  const stamps: [string, string][] = [];
  for (const file of found) {
    let info: BigIntStats;
    try {
      info = statSync(file.read, { bigint: true });
    } catch {
      return undefined;
    }
    if (!info.isFile()) return undefined;
    stamps.push([file.relative, stampOf(info)]);
  }
  return stamps;
}

/**
 * Where each content file was read from, its size, and what identifies that state of it (device,
 * inode, size, times): for reading it again once its text was let go of (letGoOfText).
 */
const firstReads = new WeakMap<ContentText, { read: string; bytes: number; stamp: string; settled: boolean }>();

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Read already; nothing to do about a failed close.
  }
}

/** The whole file, or undefined once it is found to be larger than `limit` bytes. */
function readAtMost(fd: number, expected: number, limit: number): Buffer | undefined {
  let buffer = Buffer.allocUnsafe(Math.min(expected, limit) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > limit) return undefined;
      const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
      buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}

/**
 * Lets go of a file's text once its values are checked: kept, the texts of a large content are
 * a large part of a build's memory to its end (figures: bench/README.md, 'Texts let go once
 * checked'). A diagnostic located later, or a line shown under one, reads the file again, once;
 * a file changed in between shows its new text. A file that is not text keeps the line it shows.
 */
export function letGoOfText(source: ContentText): void {
  const first = firstReads.get(source);
  if (source.unreadable || !first) return;
  let text: string | undefined;
  Object.defineProperty(source, 'text', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (text === undefined) {
        // Read as the first time (no FIFO, no more bytes than then), and shown only when it is
        // still the file that was read: a file changed since has other lines.
        const again = readSource(
          path.dirname(source.file),
          { relative: path.basename(source.file), read: first.read, absolute: source.absolute },
          first.bytes,
        );
        const same = again.source && !again.problem && firstReads.get(again.source)?.stamp === first.stamp;
        text = same ? again.source!.text : '';
      }
      return text;
    },
    set: (value: string) => (text = value),
  });
}

/** `size` is undefined for a file that grew past the limit while it was read. */
function tooLarge(file: string, size: number | undefined, limit: number): Diagnostic {
  return problem('file-too-large', { size, limit }, { file });
}

const BYTE_FACTORS = new Map([
  ['k', 1024],
  ['m', 1024 ** 2],
  ['g', 1024 ** 3],
]);

/**
 * A size as the command line takes it: bytes, or with a suffix K, M or G (powers of 1024; `KiB`,
 * `MB` and lowercase are read the same). Undefined when it is not one.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?|b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const factor = BYTE_FACTORS.get((m[2] ?? '').toLowerCase()) ?? 1;
  const bytes = Math.floor(Number(m[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
