// Part of stage 4, write: the build's bookkeeping, the state file. It says what each file of the
// last build was, so that a rebuild skips, compares or removes files without reading them all.
import { lstat, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { CANNOT_WRITE } from '../build/lock.js';
import { errorCode } from '../diagnostics/index.js';
import { isPlainRelativePath } from './paths.js';

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
  files: Files;
  /** False while a build is writing: the next build then sweeps up its temporary files. */
  complete: boolean;
  /** Files of others already reported. */
  foreign: string[];
  /** What the build that wrote these files recorded about itself (see WriteOptions.record). */
  record?: unknown;
  /** Read from inside the output folder (see STATE_FILE): written again, beside it if it can be. */
  inside?: boolean;
}

/** Beside the output folder, where its bookkeeping is kept: `.dist.addon-gen.json` for `dist`. */
export function stateFileOf(outDir: string): string {
  const root = path.resolve(outDir);
  return path.join(path.dirname(root), `.${path.basename(root)}${STATE_FILE}`);
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
  paths: unknown[];
  sizes: unknown[];
  inputs: unknown[];
  fingerprints: unknown[];
  foreign?: unknown;
  record?: unknown;
}

/** A missing, unreadable or unknown state file means "nothing known": the build still ends up correct. */
export async function readState(root: string): Promise<State> {
  const read = await readStateFile(root);
  if (!read) return { files: new Map(), complete: true, foreign: [] };
  const { state, inside } = read;
  return {
    files: filesOf(state),
    complete: state.complete !== false,
    foreign: foreignOf(state),
    ...(state.record !== undefined && { record: state.record }),
    ...(inside && { inside: true }),
  };
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
  const read: ReadStateFile = { complete: field('complete'), paths, sizes, inputs, fingerprints, foreign: field('foreign'), record: field('record') };
  return { state: read, inside: file !== stateFileOf(root) };
}

/** Files of others the state file says were reported. */
export function foreignOf(state: ReadStateFile): string[] {
  return Array.isArray(state.foreign) ? state.foreign.filter((f): f is string => typeof f === 'string') : [];
}

/** The state file's files, by path. */
export function filesOf({ paths, sizes, inputs, fingerprints }: ReadStateFile): Files {
  const files: Files = new Map();
  for (let i = 0; i < paths.length; i++) {
    const file = paths[i];
    const bytes = sizes[i];
    const input = inputs[i];
    // An entry of another shape (a hand edit) is left out: that file is rewritten. A path that
    // is not plainly below the output folder was never written by a build: never remove it.
    if (typeof file !== 'string' || typeof bytes !== 'number' || typeof input !== 'number') continue;
    if (!isPlainRelativePath(file)) continue;
    const fingerprint = fingerprints[input];
    // Each entry of one shape: the map is made faster than with `inputs` left out where there is
    // none (figures: bench/README.md, 'Bookkeeping entries of one shape').
    files.set(file, { bytes, inputs: typeof fingerprint === 'string' ? fingerprint : undefined });
  }
  return files;
}

/**
 * Writes the state file. Its files are in the order given (the plan's, for a complete build): a
 * reader makes a map of them, and sorting every path, twice a build, takes time (figures:
 * bench/README.md, 'Bookkeeping in the plan's order').
 */
export async function writeState(root: string, state: Omit<State, 'files'> & { files: Iterable<[string, Written]> }) {
  const paths: string[] = [];
  const entries: Written[] = [];
  for (const [file, written] of state.files) {
    paths.push(file);
    entries.push(written);
  }
  const fingerprints = new Map<string, number>();
  const indexOf = (inputs: string | undefined) => {
    if (inputs === undefined) return -1;
    if (!fingerprints.has(inputs)) fingerprints.set(inputs, fingerprints.size);
    return fingerprints.get(inputs)!;
  };
  // Written field by field, in StateFile's order, each column made as it is written, and a few
  // thousand entries of it at a time. The whole file at once was there twice, as a string and as
  // bytes, and a column at once stayed in the heap to the end of the build, when its memory
  // peaks (figures: bench/README.md, 'Bookkeeping written in pieces'). The
  // bytes are those of JSON.stringify(whole); appendFile, unlike write, writes all of its text.
  const fields: { [K in keyof Required<StateFile>]: () => StateFile[K] } = {
    generator: () => 'addon-gen',
    format: () => 3,
    complete: () => state.complete,
    paths: () => paths,
    sizes: () => entries.map((e) => e.bytes),
    inputs: () => entries.map((e) => indexOf(e.inputs)),
    fingerprints: () => [...fingerprints.keys()], // numbered as `inputs` was made, just before
    foreign: () => state.foreign,
    record: () => state.record,
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
    let separator = '{';
    for (const [name, value] of Object.entries(fields)) {
      const field = value();
      if (field === undefined) continue; // as JSON.stringify leaves out an undefined field
      await handle.appendFile(`${separator}${JSON.stringify(name)}:`);
      if (Array.isArray(field)) {
        for (let from = 0; from < field.length; from += STATE_CHUNK) {
          // The entries inside the brackets of the slice's JSON: as the whole array's JSON has them.
          const json = JSON.stringify(field.slice(from, from + STATE_CHUNK));
          await handle.appendFile(`${from === 0 ? '[' : ','}${json.slice(1, -1)}`);
        }
        await handle.appendFile(field.length === 0 ? '[]' : ']');
      } else {
        await handle.appendFile(JSON.stringify(field));
      }
      separator = ',';
    }
    await handle.appendFile('}');
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

/**
 * A new file, never one that is there: a link left at a temporary name (by anyone) would
 * otherwise be followed, and its target overwritten.
 */
async function createNew(file: string): Promise<FileHandle> {
  await rm(file, { force: true });
  return open(file, 'wx');
}

/**
 * Where the state file of `root` is. One inside the output folder is newer than any beside it:
 * it is only written while the folder above cannot be, and the next state written beside
 * removes it. Reading moves nothing: a build that fails changes nothing on disk.
 */
async function stateFileIn(root: string): Promise<string> {
  const inside = stateFileInside(root);
  return (await lstat(inside).catch(() => undefined))?.isFile() ? inside : stateFileOf(root);
}

/** Whether `next` (of distinct paths) records at each path what `previous` does, and no other path. */
export function sameFiles(previous: Files, next: Iterable<[string, Written]>): boolean {
  let count = 0;
  for (const [file, y] of next) {
    const x = previous.get(file);
    if (x?.bytes !== y.bytes || x.inputs !== y.inputs) return false;
    count++;
  }
  return count === previous.size;
}
