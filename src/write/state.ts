// Part of stage 4, write: the build's bookkeeping, the state file. It says what each file of the
// last build was, so that a rebuild skips, compares or removes files without reading them all.
import { constants } from 'node:fs';
import { lstat, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { CANNOT_WRITE } from '../build/lock.js';
import { errorCode } from '../diagnostics/index.js';
import { isPlainRelativePath } from './paths.js';
import { besideOutput } from '../shared/locations.js';
import { fieldOf } from '../shared/fields.js';
import { createNew, writeWhole } from './new-file.js';
import type { EditsSince, PreviousFiles, RecordedEntry } from './previous-files.js';

/**
 * The build's own bookkeeping: each file it wrote, with the size of its bytes and the fingerprint
 * of what they were rendered from. It lets a rebuild skip unchanged files without reading them (or
 * even rendering them), read only those rendered again at the same size, and find the files that
 * no longer belong. A missing or corrupt one only makes the next build slower. It is kept beside
 * the output folder (see stateFileOf), where no host uploads it: Cloudflare Pages' direct upload,
 * for one, publishes every file of the folder it is given, dot-files too. It is inside the output
 * folder, under this name, only while the folder above cannot be written (and where earlier
 * versions kept it).
 */
export const STATE_FILE = '.addon-gen.json';
/** The end of temporary file names, so that leftovers of an interrupted build can be found. */
export const TEMP_SUFFIX = '.addon-gen-tmp';
/** Entries of a state file column written at once: strings small enough to be short-lived. */
const STATE_CHUNK = 2048;

/** What a build wrote at one path. */
export interface Written {
  /** The size of the bytes; -1 when unknown (an interrupted build may have left anything). */
  bytes: number;
  /** The file's `inputs` fingerprint, when it has one. */
  inputs?: string;
}
export type Files = Map<string, Written>;
/** What an interrupted build may have left at a path: anything. */
export const UNKNOWN: Written = Object.freeze({ bytes: -1 });
export interface State {
  files: PreviousFiles;
  /** False while a build is writing: the next build then sweeps up its temporary files. */
  complete: boolean;
  /** Files of others already reported. */
  foreign: string[];
  /** What the build that wrote these files recorded about itself (see WriteOptions.record). */
  record?: unknown;
  /** Read from inside the output folder (see STATE_FILE): written again, beside it if it can be. */
  inside?: boolean;
  /** The CLI's edits wrote files since (EDITED, build/edit.ts): their record says which. */
  edited?: boolean;
  /** The output's folders as the last of those edits stamped them (EditsSince.folders). */
  foldersAfterEdits?: EditsSince['folders'];
}

/**
 * What the stamps slot holds once the CLI's edits (build/edit.ts) wrote files since the state file
 * was written: the record of edits says which. Without that record, every file is in doubt.
 */
export const EDITED = 'edited';

/** Beside the output folder, where its bookkeeping is kept: `.dist.addon-gen.json` for `dist`. */
export function stateFileOf(outDir: string): string {
  return besideOutput(outDir, STATE_FILE);
}

/** Inside the output folder, where the state file is kept only while the folder above cannot be written. */
function stateFileInside(root: string): string {
  return path.join(root, STATE_FILE);
}

/**
 * The state file, column by column: a quarter of a million files read and written as arrays
 * parse several times faster than as one object per file, and each inputs fingerprint (shared
 * by an item's files) is stored once.
 */
interface StateFile {
  generator: 'addon-gen';
  format: 3;
  /** The byte offset of `paths`: the fields before it are read alone (readStateHead). */
  head: number;
  /** The stamps of the output's folders (write/stamps.ts), padded to a length kept for them. */
  stamps: string;
  complete: boolean;
  paths: string[];
  /** -1 where unknown (see UNKNOWN). */
  sizes: number[];
  /** Index into `fingerprints`, or -1. */
  inputs: number[];
  fingerprints: string[];
  /** Files of others in the output folder that were reported. */
  foreign?: string[];
  /** The build's record of itself. */
  record?: unknown;
}

/**
 * A state file as read, before its entries are trusted: the columns are arrays, each entry checked
 * where it is used (filesOf), and the other fields are whatever the file holds.
 */
export interface ReadStateFile {
  complete?: unknown;
  stamps?: unknown;
  paths: unknown[];
  sizes: unknown[];
  inputs: unknown[];
  fingerprints: unknown[];
  foreign?: unknown;
  record?: unknown;
}

/** What the stamps slot holds, without the padding. */
export function slotText(stamps: unknown): string | undefined {
  return typeof stamps === 'string' ? stamps.replace(/\.+$/, '') : undefined;
}

/** The state file's fields, when it is of a format this version reads; its files not yet in a map. */
export async function readStateFile(root: string): Promise<{ state: ReadStateFile; inside: boolean } | undefined> {
  const file = await stateFileIn(root);
  let state: unknown;
  try {
    state = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof state !== 'object' || state === null) return undefined;
  const field = (name: keyof StateFile): unknown => Reflect.get(state, name);
  const [paths, sizes, inputs, fingerprints] = [field('paths'), field('sizes'), field('inputs'), field('fingerprints')];
  // Format 2 had a hash of each file too, and its sizes mean what format 3's do where a rebuild
  // trusts them: in a complete record.
  const format = field('format');
  if ((format !== 2 && format !== 3) || !Array.isArray(paths) || !Array.isArray(fingerprints)) return undefined;
  if (!Array.isArray(sizes) || !Array.isArray(inputs) || sizes.length !== paths.length || inputs.length !== paths.length) return undefined;
  const read: ReadStateFile = {
    complete: field('complete'),
    stamps: field('stamps'),
    paths,
    sizes,
    inputs,
    fingerprints,
    foreign: field('foreign'),
    record: field('record'),
  };
  return { state: read, inside: file !== stateFileOf(root) };
}

/** Files of others the state file says were reported. */
export function foreignOf(state: Pick<ReadStateFile, 'foreign'>): string[] {
  return Array.isArray(state.foreign) ? state.foreign.filter((f): f is string => typeof f === 'string') : [];
}

/** The state file's files, by path. */
export function filesOf(state: ReadStateFile): Files {
  const files: Files = new Map();
  // Each entry of one shape: the map is made faster than with `inputs` left out where there is
  // none (figures: bench/README.md, 'Bookkeeping entries of one shape').
  for (const [file, bytes, inputs] of recordedEntries(state)) files.set(file, { bytes, inputs });
  return files;
}

/**
 * The state file's entries, in its order; `paths` may be read one at a time (previous-files.ts).
 * Throws when it does not have as many as the other columns.
 */
export function* recordedEntries({
  paths,
  sizes,
  inputs,
  fingerprints,
}: Pick<ReadStateFile, 'sizes' | 'inputs' | 'fingerprints'> & { paths: Iterable<unknown> }): Generator<RecordedEntry> {
  let i = 0;
  for (const file of paths) {
    const bytes = sizes[i];
    const input = inputs[i++];
    // An entry of another shape (a hand edit) is left out: that file is rewritten. A path that
    // is not plainly below the output folder was never written by a build: never remove it.
    if (typeof file !== 'string' || typeof bytes !== 'number' || typeof input !== 'number') continue;
    if (!isPlainRelativePath(file)) continue;
    const fingerprint = fingerprints[input];
    yield [file, bytes, typeof fingerprint === 'string' ? fingerprint : undefined];
  }
  if (i !== sizes.length) throw new Error('the columns of the state file differ in length');
}

/**
 * The start of every state file this version writes, up to the byte offset of its columns: the
 * head (see readStateHead) is the fields before them, which a rebuild that changes nothing reads
 * alone.
 */
const HEAD_START = '{"generator":"addon-gen","format":3,"head":';
/** The first column, where the head ends. */
const COLUMNS_START = '"paths":';
/** What fills the stamps slot around its text: a character a JSON string holds unescaped. */
const SLOT_FILL = '.';

/**
 * Writes the state file. Its files are in the order given (the plan's, for a complete build): a
 * reader makes a map of them, and sorting every path, twice a build, takes time (figures:
 * bench/README.md, 'Bookkeeping in the plan's order'). `files` gives them anew for each column:
 * gathered into arrays first, a million entries weighed on the end of a build, when its memory
 * peaks (same file, 'Memory at a million files'). `slot` characters are kept for the stamps of
 * the output's folders, written in place once the build's last write is done (writeStampsSlot).
 */
export async function writeState(root: string, state: Omit<State, 'files'> & { files: () => Iterable<[string, Written]> }, slot = 0) {
  const fingerprints = new Map<string, number>();
  const indexOf = (inputs: string | undefined) => {
    if (inputs === undefined) return -1;
    if (!fingerprints.has(inputs)) fingerprints.set(inputs, fingerprints.size);
    return fingerprints.get(inputs)!;
  };
  // The head first, with its own length: the offset of the columns, so that it can be read alone.
  // Its length counts its own digits: a few rounds settle it.
  const rest =
    `,"stamps":${JSON.stringify(SLOT_FILL.repeat(slot))},"complete":${JSON.stringify(state.complete)},"foreign":${JSON.stringify(state.foreign)}` +
    `${state.record === undefined ? '' : `,"record":${JSON.stringify(state.record)}`},`;
  const lengthWith = (head: number) => Buffer.byteLength(`${HEAD_START}${head}${rest}`);
  let head = 0;
  while (lengthWith(head) !== head) head = lengthWith(head);
  // Then the columns field by field, each made as it is written, and a few thousand entries of
  // it at a time. The whole file at once was there twice, as a string and as bytes, and a column
  // at once stayed in the heap to the end of the build, when its memory peaks (figures:
  // bench/README.md, 'Bookkeeping written in pieces'). The bytes are those of
  // JSON.stringify(whole), written as text (writeWhole).
  const column = <T>(value: (path: string, written: Written) => T) =>
    function* (): Generator<T> {
      for (const [path, written] of state.files()) yield value(path, written);
    };
  const columns: { [K in 'paths' | 'sizes' | 'inputs' | 'fingerprints']: () => Iterable<StateFile[K][number]> } = {
    paths: column((path) => path),
    sizes: column((_, written) => written.bytes),
    inputs: column((_, written) => indexOf(written.inputs)),
    fingerprints: () => fingerprints.keys(), // numbered as `inputs` was made, just before
  };
  const inside = stateFileInside(root);
  let target = stateFileOf(root);
  let scratch = `${target}${TEMP_SUFFIX}`;
  let handle: FileHandle;
  try {
    handle = await createNew(scratch);
  } catch (error) {
    if (!CANNOT_WRITE.has(errorCode(error))) throw error;
    // The folder above cannot be written: inside, where stateFileIn looks first.
    target = inside;
    scratch = `${target}${TEMP_SUFFIX}`;
    handle = await createNew(scratch);
  }
  try {
    writeWhole(handle.fd, `${HEAD_START}${head}${rest}`);
    let separator = '';
    for (const [name, values] of Object.entries(columns)) {
      writeWhole(handle.fd, `${separator}${JSON.stringify(name)}:`);
      let chunk: unknown[] = [];
      let written = 0;
      const flush = () => {
        // The entries inside the brackets of the chunk's JSON: as the whole array's JSON has them.
        writeWhole(handle.fd, `${written === 0 ? '[' : ','}${JSON.stringify(chunk).slice(1, -1)}`);
        written += chunk.length;
        chunk = [];
      };
      for (const value of values()) {
        chunk.push(value);
        if (chunk.length === STATE_CHUNK) flush();
      }
      if (chunk.length > 0) flush();
      writeWhole(handle.fd, written === 0 ? '[]' : ']');
      separator = ',';
    }
    writeWhole(handle.fd, '}');
    await handle.close();
    await rename(scratch, target);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(scratch, { force: true }).catch(() => {});
    throw error;
  }
  // Out of what hosts upload, now that it can be.
  if (target !== inside) await rm(inside, { force: true });
}

/** The fields of a state file before its columns, read alone (see readStateHead). */
export interface StateHead {
  file: string;
  complete?: unknown;
  record?: unknown;
  /** The text in the stamps slot; '' when it holds none. */
  stamps: string;
  /** Where the slot is in the file, in bytes, and its length. */
  slot: { offset: number; length: number };
  /** The state file's size and modification time when read. */
  bytes: number;
  mtimeNs: bigint;
}

/** Where the head of a state file ends, read from its first bytes; undefined when it does not start as this version writes it. */
export function headLength(first: Buffer): { end: number; digits: string } | undefined {
  const start = first.toString('latin1', 0, HEAD_START.length + 12);
  const digits = /^\d{1,11}/.exec(start.slice(HEAD_START.length))?.[0];
  return start.startsWith(HEAD_START) && digits !== undefined ? { end: Number(digits), digits } : undefined;
}

/** The fields of the head that ends at `end` in `bytes`, and where the columns start (the `[` of the paths); undefined when it is not one. */
export function headOf(bytes: Buffer, end: number): { fields: unknown; columns: number } | undefined {
  const columns = end + COLUMNS_START.length;
  if (bytes.length < columns || bytes.toString('latin1', end, columns) !== COLUMNS_START) return undefined;
  try {
    return { fields: JSON.parse(`${bytes.toString('utf8', 0, end - 1)}}`), columns };
  } catch {
    return undefined;
  }
}

/**
 * The head of the state file: what a rebuild that changes nothing needs, without the columns
 * (12 MB for a quarter of a million files). Undefined when the file does not start as this
 * version writes it (an earlier version, a hand edit): then it is read whole.
 */
export async function readStateHead(root: string): Promise<StateHead | undefined> {
  const file = await stateFileIn(root);
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const readAt = async (length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead);
    };
    const length = headLength(await readAt(HEAD_START.length + 12));
    const head = length && headOf(await readAt(length.end + COLUMNS_START.length), length.end);
    if (!length || !head) return undefined;
    const { digits } = length;
    const field = (name: string): unknown => fieldOf(head.fields, name);
    const stamps = field('stamps');
    if (typeof stamps !== 'string' || !/^[\x21-\x7e]*$/.test(stamps) || stamps.includes('"') || stamps.includes('\\')) return undefined;
    const info = await handle.stat({ bigint: true });
    return {
      file,
      complete: field('complete'),
      record: field('record'),
      stamps: slotText(stamps)!,
      slot: { offset: Buffer.byteLength(`${HEAD_START}${digits},"stamps":"`), length: stamps.length },
      bytes: Number(info.size),
      mtimeNs: info.mtimeNs,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Writes `text` (characters a JSON string holds unescaped, not ending in a `.`) into the stamps
 * slot of the state file `head` was read from, in place; returns the file's modification time
 * after the write, or undefined when the text does not fit.
 */
export async function writeStampsSlot(head: StateHead, text: string): Promise<bigint | undefined> {
  if (text.length > head.slot.length) return undefined;
  // Never through a link put in its place: only the file this build wrote is written in place.
  const handle = await open(head.file, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0));
  try {
    await handle.write(text.padEnd(head.slot.length, SLOT_FILL), head.slot.offset, 'latin1');
    return (await handle.stat({ bigint: true })).mtimeNs;
  } finally {
    await handle.close();
  }
}

/**
 * Where the state file of `root` is. One inside the output folder is newer than any beside it:
 * it is only written while the folder above cannot be, and the next state written beside
 * removes it. Reading moves nothing: a build that fails changes nothing on disk.
 */
export async function stateFileIn(root: string): Promise<string> {
  const inside = stateFileInside(root);
  return (await lstat(inside).catch(() => undefined))?.isFile() ? inside : stateFileOf(root);
}
