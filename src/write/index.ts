// Stage 4, write: the only code that touches the output folder. Each file is written atomically
// (a temporary file, then a rename) and only when its bytes changed; files an earlier build wrote
// and this one does not are removed. Files the build never wrote are left alone.
import { readdir as readdirCallback } from 'node:fs';
import { lstat, mkdir, open, readFile, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BatchBuilder, startFileCreator } from './create-files.js';
import { CANNOT_WRITE, LOCK_FILE_INSIDE } from '../build/lock.js';
import { errorCode, IoError, ioFailure } from '../diagnostics/index.js';
import type { OutputFile } from '../plan/index.js';

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
const TEMP_SUFFIX = '.addon-gen-tmp';
/** Entries of a state file column written at once: strings small enough to be short-lived. */
const STATE_CHUNK = 2048;
/**
 * The end of the name of the folder beside the output folder where new folders are made. A
 * temporary file and a rename per file cost this machine's disk more than writing the files
 * (measured: 38 s against 9 to 22 s for the large benchmark's files): a folder that is not in
 * the output yet is made whole there and moves in with one rename, never seen half-written.
 */
const STAGING_SUFFIX = '.addon-gen-staging';
/** Threads that create files, and the number of files from which a build starts them. */
const THREADS = 2;
const THREADS_FROM = 1000;
/** Files per message to a thread, and messages in flight: the threads never wait for the next. */
const BATCH_FILES = 64;
const CONCURRENCY = 4;
const readdirFast = (dir: string) => promisify(readdirCallback)(dir, { withFileTypes: true });

export interface WriteResult {
  files: number;
  bytes: number;
  written: number;
  unchanged: number;
  removed: number;
  largest: { path: string; bytes: number };
  /** Files, bytes and files written per resource (manifest, catalog, meta, stream, subtitles, asset, page, host). */
  byResource: Record<string, { files: number; bytes: number; written: number }>;
  /**
   * Files (and folders, ending in `/`) in the output folder that addon-gen did not write, seen
   * for the first time: they are left alone, and reported by one build only.
   */
  foreign: string[];
}

/** What a build wrote at one path. */
interface Written {
  /** The size of the bytes; -1 when unknown (an interrupted build may have left anything). */
  bytes: number;
  /** The file's `inputs` fingerprint, when it has one. */
  inputs?: string;
}
type Files = Map<string, Written>;
/** What an interrupted build may have left at a path: anything. */
const UNKNOWN: Written = Object.freeze({ bytes: -1 });
interface State {
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

export interface WriteOptions {
  /** Told how many files are done after each one. */
  onFile?: (done: number) => void;
  /**
   * What the build records about itself, given what was written: kept in the bookkeeping, and
   * handed back by `intactOutput` while every file is still in place. JSON only, and public.
   */
  record?: (result: WriteResult) => unknown;
}

/** Writes `files` below `outDir`; their paths are distinct (plan reports two files at one path). */
export async function writeOutput(outDir: string, files: readonly OutputFile[], options: WriteOptions = {}): Promise<WriteResult> {
  const { onFile } = options;
  const root = path.resolve(outDir);
  await mkdir(root, { recursive: true }).catch((error: unknown) => {
    throw ioFailure(error, 'Nothing was written.');
  });
  const previous = await readState(root);
  const result: WriteResult = {
    files: files.length,
    bytes: 0,
    written: 0,
    unchanged: 0,
    removed: 0,
    largest: { path: '', bytes: 0 },
    byResource: {},
    foreign: [],
  };
  // What was written for each of `files`, by position: a map of the large benchmark's quarter of
  // a million paths to it took 0.2 s of a first build's main thread, and about 30 MB of its peak
  // RSS (measured).
  const recorded: Written[] = new Array(files.length);
  // Whether a path is one of `files`. A rebuild asks only about files on disk that the last build
  // did not write (a CNAME, say) and, when some of its files are stale, about those: the first
  // few are looked for one by one, and a set of all the paths (0.3 s of a one-item rebuild,
  // measured) is made only for more.
  let paths: Set<string> | undefined;
  let lookups = 0;
  const planned = (file: string) => {
    if (paths === undefined && lookups++ < 8) return files.some((f) => f.path === file);
    return (paths ??= new Set(files.map((f) => f.path))).has(file);
  };
  const ours = (file: string) => previous.files.has(file) || planned(file);
  const tree = () =>
    listTree(root, function* () {
      for (const file of files) yield file.path;
      yield* previous.files.keys();
    }, ours);
  const existing = await tree();
  // Where a folder of ours goes, a link leads out of the output folder: writing (and removing)
  // files below it would change files elsewhere. A file there would stop the build half-way.
  // Both are refused before anything is touched.
  const [blocked] = existing.inTheWay;
  if (blocked) {
    const at = path.join(root, blocked.path);
    throw new IoError(
      blocked.link
        ? `${at} is a symbolic link, where the build writes a folder of the addon: addon-gen writes only inside ${root}, never through links. Nothing was written; remove the link (or make it a real folder) and build again`
        : `${at} is a file, where the build writes a folder of the addon. Nothing was written; move the file away and build again`,
      at,
    );
  }
  // Leftovers of an interrupted build, or of one that failed.
  await Promise.all([removeAll(root, existing.temporary), rm(stagingDirOf(root), { recursive: true, force: true })]).catch((error: unknown) => {
    throw ioFailure(error, 'Nothing was written.');
  });
  const foreign = existing.foreign;
  const staging = await stageNewFolders(root, files, existing.top);
  const reported = new Set(previous.foreign);
  result.foreign = foreign.filter((f) => !reported.has(f));

  const isStaged = (file: string) => staging !== undefined && staging.tops.has(topFolderOf(file));

  // Before the first write in the output folder, record every path this build may touch there as
  // incomplete: if it is interrupted, the next build knows the files it may have left, and
  // compares them all. A build that changes nothing writes no state at all. Staged files are not
  // in it: the output holds none of them until the complete record is made (below), and a first
  // build's record is then a few files, not a quarter of a million paths that held up its first
  // writes (0.2 s, measured).
  let started: Promise<void> | undefined;
  // Whether files of the output folder may have changed: once the record says the build is incomplete.
  let touched = false;
  const start = () => {
    if (started) return started;
    // The files of the last build, then those only this one has: a map of them all was a quarter
    // of a million entries more to make while the threads wait (0.17 s, measured).
    const intent = function* (): Generator<[string, Written]> {
      yield* previous.files;
      for (const file of files) if (!previous.files.has(file.path) && !isStaged(file.path)) yield [file.path, UNKNOWN];
    };
    return (started = writeState(root, { files: intent(), complete: false, foreign }).then(() => {
      touched = true;
    }));
  };
  const count = (index: number, written: Written) => {
    const file = files[index]!;
    recorded[index] = written;
    const tally = (result.byResource[file.resource] ??= { files: 0, bytes: 0, written: 0 });
    tally.files++;
    tally.bytes += written.bytes;
    result.bytes += written.bytes;
    if (written.bytes > result.largest.bytes) result.largest = { path: file.path, bytes: written.bytes };
  };
  let done = 0;
  try {
    await writeFiles();
    await removeStale();
    await recordComplete();
    // Each new folder moves in whole, complete: one rename. After the complete record, which
    // lists their files: a build cut off between the two leaves a record of files some of which
    // are missing, and the next build writes those again, as it does any missing file.
    for (const top of staging?.tops ?? []) {
      await rename(path.join(staging!.dir, top), path.join(root, top)).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
      });
    }
  } catch (error) {
    // Threads stopped mid-file may have left temporary files: the tree is listed again for them.
    await tree()
      .then((now) => removeAll(root, now.temporary))
      .catch(() => {});
    const outcome = !touched
      ? `Nothing in ${root} changed`
      : previous.files.size === 0
        ? `${root} holds part of this build, each file whole; the next build that can write completes it`
        : `${root} now holds some files of this build and the others of the last one, each whole; the next build that can write completes it`;
    throw ioFailure(error, outcome);
  } finally {
    if (staging) await rm(staging.dir, { recursive: true, force: true }).catch(() => {});
  }

  /** Renders the files and has threads create them; the threads end before the record is made. */
  async function writeFiles() {
    // The threads decide whether each file is written; `start` is their cue before the first
    // write in the output folder.
    const creator = startFileCreator(files.length >= THREADS_FROM ? THREADS : 0, TEMP_SUFFIX, start);
    try {
      await eachConcurrently(groupsOf(files.length), async ([from, to]) => {
        const batch = creator.batch(!previous.complete);
        const queued: OutputFile[] = [];
        for (let index = from; index < to; index++) {
          const file = files[index]!;
          // Assets are copied from the content folder; every other body is rendered as it is added.
          const copy = file.copyFrom === undefined ? undefined : await readFile(file.copyFrom);
          if (add(index, batch, copy)) queued.push(file);
          else onFile?.(++done);
        }
        const created = await batch.send();
        queued.forEach((file, i) => {
          if (created.written[i]) {
            result.written++;
            result.byResource[file.resource]!.written++;
          } else {
            result.unchanged++;
          }
          onFile?.(++done);
        });
      });
    } finally {
      await creator.close();
    }
  }

  /**
   * Counts `files[index]`, and adds it to `batch` unless its inputs say it is unchanged; returns
   * whether it was added. `copy` is the body of an asset.
   */
  function add(index: number, batch: BatchBuilder, copy: Buffer | undefined): boolean {
    const file = files[index]!;
    const before = previous.files.get(file.path);
    // The listing says whether nobody removed the file since the last build: one readdir per
    // folder, not a stat per file.
    const trusted = previous.complete && before && before.bytes >= 0 && existing.has(file.path) ? before : undefined;
    // Rendered from the same inputs as the file a complete build left: the same bytes.
    if (trusted && file.inputs !== undefined && trusted.inputs === file.inputs) {
      count(index, trusted);
      result.unchanged++;
      return false;
    }
    const body = copy ?? (typeof file.body === 'function' ? file.body() : (file.body ?? ''));
    const staged = isStaged(file.path);
    // After a complete build, a file of the size it recorded is compared with the new bytes. After
    // an interrupted one, any file may hold the bytes of the build that was cut off, whatever its
    // size: the thread compares them all.
    const bytes = batch.add(inside(staged ? staging!.dir : root, file.path), body, staged, trusted?.bytes);
    count(index, { bytes, inputs: file.inputs });
    return true;
  }

  /** Removes the files the last build wrote and this one does not. */
  async function removeStale() {
    // Nothing is stale when every file the last build wrote is planned again (plan's paths are distinct).
    let kept = 0;
    for (const file of files) if (previous.files.has(file.path)) kept++;
    if (kept === previous.files.size) return;
    for (const file of previous.files.keys()) {
      if (planned(file)) continue;
      await start();
      const target = inside(root, file);
      await rm(target, { force: true });
      await removeEmptyParents(root, path.dirname(target));
      result.removed++;
    }
  }

  /** Records what was written, as complete, when it differs from what the last build recorded. */
  async function recordComplete() {
    // Every file was counted: each has what was written.
    const nextFiles = function* (): Generator<[string, Written]> {
      for (let i = 0; i < files.length; i++) yield [files[i]!.path, recorded[i]!];
    };
    const record = options.record?.(result);
    const changed =
      started ||
      !previous.complete ||
      previous.inside ||
      result.foreign.length > 0 ||
      !sameFiles(previous.files, nextFiles()) ||
      JSON.stringify(record) !== JSON.stringify(previous.record);
    if (changed || foreign.length !== previous.foreign.length) await writeState(root, { files: nextFiles(), complete: true, foreign, record });
  }
  return result;
}

/**
 * What `holds` makes of the record of the build that wrote `outDir`, when that build was
 * complete and every file it wrote is still there, with no other file new since. (Files are
 * trusted to hold what was written, as `writeOutput` trusts them.) The record is judged before
 * the folder is listed: when the content changed, listing a quarter of a million files to find
 * them all there took a one-item rebuild of the large benchmark about 0.5 s (measured).
 */
export async function intactOutput<T>(outDir: string, holds: (record: unknown) => Promise<T | undefined> | T | undefined): Promise<T | undefined> {
  const root = path.resolve(outDir);
  // Its files are made into a map only once the record holds: a quarter of a million took 0.2 s.
  const read = await readStateFile(root);
  if (!read || read.state.complete === false || read.state.record === undefined) return undefined;
  const held = await holds(read.state.record);
  if (held === undefined) return undefined;
  const files = filesOf(read.state);
  if (files.size === 0) return undefined;
  const paths = [...files.keys()];
  const existing = await listTree(root, () => paths, (file) => files.has(file));
  const reported = new Set(foreignOf(read.state));
  if (!paths.every((file) => existing.has(file)) || existing.foreign.some((f) => !reported.has(f))) return undefined;
  return held;
}

/**
 * What is in the output folder: `has(path)` for the files below folders that hold ours, and the
 * other entries, not descending into folders that hold none of ours (a `.git`, say). The folders
 * of `paths` are worked out only when the output folder has a folder: not for a first build.
 * Also what is in the way where a folder of ours belongs (a link, a file), and the temporary
 * files of builds that were cut off or failed, found on the way.
 */
async function listTree(
  root: string,
  paths: () => Iterable<string>,
  ours: (path: string) => boolean,
): Promise<{ has(path: string): boolean; foreign: string[]; top: Set<string>; inTheWay: { path: string; link: boolean }[]; temporary: string[] }> {
  let dirs: Set<string> | undefined;
  const isOurDir = (dir: string) => {
    if (!dirs) {
      dirs = new Set<string>();
      for (const file of paths()) {
        for (let d = path.posix.dirname(file); d !== '.' && !dirs.has(d); d = path.posix.dirname(d)) dirs.add(d);
      }
    }
    return dirs.has(dir);
  };
  const names = new Map<string, Set<string>>();
  const foreign: string[] = [];
  const top = new Set<string>();
  const inTheWay: { path: string; link: boolean }[] = [];
  const temporary: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdirFast(dir === '' ? root : path.join(root, dir)).catch(() => []);
    const here = new Set<string>();
    names.set(dir, here);
    await Promise.all(
      entries.map((entry) => {
        if (dir === '') top.add(entry.name);
        const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (isOurDir(relative)) return visit(relative);
          foreign.push(`${relative}/`);
        } else if (entry.name.endsWith(TEMP_SUFFIX)) {
          temporary.push(relative);
        } else if (relative === STATE_FILE || relative === LOCK_FILE_INSIDE) {
          // The bookkeeping, kept inside while the folder above cannot be written.
        } else if (isOurDir(relative)) {
          inTheWay.push({ path: relative, link: entry.isSymbolicLink() });
        } else if (entry.isSymbolicLink()) {
          // A link where a file of ours goes is not that file: it is written over (a rename
          // replaces the link, not what it points at). Others' links are left alone.
          if (!ours(relative)) foreign.push(relative);
        } else {
          here.add(entry.name);
          if (!ours(relative)) foreign.push(relative);
        }
        return undefined;
      }),
    );
  };
  await visit('');
  const has = (file: string) => {
    const slash = file.lastIndexOf('/');
    return names.get(slash < 0 ? '' : file.slice(0, slash))?.has(file.slice(slash + 1)) ?? false;
  };
  return { has, foreign: foreign.sort(), top, inTheWay: inTheWay.sort((a, b) => (a.path < b.path ? -1 : 1)), temporary };
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

/** Beside the output folder, where new folders are made before they move in. */
export function stagingDirOf(root: string): string {
  return path.join(path.dirname(root), `.${path.basename(root)}${STAGING_SUFFIX}`);
}

/** `meta` for `meta/movie/x.json`; '' for a file at the top. */
function topFolderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/**
 * The top folders of `files` that nothing in the output folder is named like yet (all of them, in
 * a first build), with the staging folder they are made in: their files need no temporary file
 * and rename each, since the whole folder moves in at once. None when the staging folder cannot
 * be made on the same file system (a rename could not move it then).
 */
async function stageNewFolders(root: string, files: readonly OutputFile[], present: ReadonlySet<string>) {
  const tops = new Set<string>();
  for (const file of files) {
    const top = topFolderOf(file.path);
    if (top !== '' && !present.has(top)) tops.add(top);
  }
  if (tops.size === 0) return undefined;
  const dir = stagingDirOf(root);
  try {
    await mkdir(dir);
    if ((await stat(dir)).dev === (await stat(root)).dev) return { dir, tops };
  } catch {
    // A parent folder that cannot be written: each file gets its temporary file.
  }
  await rm(dir, { recursive: true, force: true });
  return undefined;
}

/** Removes `relative` paths below `root` (temporary files a build left). */
async function removeAll(root: string, relative: readonly string[]) {
  await Promise.all(relative.map((file) => rm(inside(root, file), { force: true })));
}

/** The positions of `count` files in groups of BATCH_FILES, [from, to): one message to a thread each. */
function groupsOf(count: number): [from: number, to: number][] {
  const groups: [number, number][] = [];
  for (let from = 0; from < count; from += BATCH_FILES) groups.push([from, Math.min(from + BATCH_FILES, count)]);
  return groups;
}

/** An empty, `.` or `..` segment, a backslash, or a drive or root at the start. */
const NOT_PLAIN = /(?:^|\/)\.{0,2}(?:\/|$)|\\|^[a-z]:/i;

/** `a/b.json`: relative, forward slashes, no `.` or `..` segments, nothing empty. */
function isPlainRelativePath(file: string): boolean {
  return !NOT_PLAIN.test(file);
}

/**
 * The absolute path of an output path below `root` (an absolute folder), refusing any that would
 * lead out of it. A test and a concatenation: path.resolve, once per file, took a tenth of a
 * second of a large build (measured).
 */
function inside(root: string, relative: string): string {
  if (!isPlainRelativePath(relative)) throw new Error(`refusing to write outside the output folder: ${relative}`);
  return root + path.sep + (path.sep === '/' ? relative : relative.replaceAll('/', path.sep));
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

/** The columns of the state file's files. */
type StateColumns = Pick<StateFile, 'paths' | 'sizes' | 'inputs' | 'fingerprints'>;

/** A missing, unreadable or unknown state file means "nothing known": the build still ends up correct. */
async function readState(root: string): Promise<State> {
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
async function readStateFile(root: string): Promise<{ state: Partial<StateFile> & StateColumns; inside: boolean } | undefined> {
  const file = await stateFileIn(root);
  let state: Partial<StateFile> | null;
  try {
    state = JSON.parse(await readFile(file, 'utf8')) as Partial<StateFile> | null;
  } catch {
    return undefined;
  }
  if (state === null) return undefined;
  const { paths, sizes, inputs, fingerprints } = state;
  // Format 2 had a hash of each file too, and its sizes mean what format 3's do where a rebuild
  // trusts them: in a complete record.
  const format = state.format as number | undefined;
  if ((format !== 2 && format !== 3) || !Array.isArray(paths) || !Array.isArray(fingerprints)) return undefined;
  if (!Array.isArray(sizes) || !Array.isArray(inputs) || sizes.length !== paths.length || inputs.length !== paths.length) return undefined;
  return { state: { ...state, paths, sizes, inputs, fingerprints }, inside: file !== stateFileOf(root) };
}

/** Files of others the state file says were reported. */
function foreignOf(state: Partial<StateFile>): string[] {
  return Array.isArray(state.foreign) ? state.foreign.filter((f): f is string => typeof f === 'string') : [];
}

/** The state file's files, by path. */
function filesOf({ paths, sizes, inputs, fingerprints }: StateColumns): Files {
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
    // Each entry of one shape: the map is made about a quarter faster than with `inputs` left out
    // where there is none (measured).
    files.set(file, { bytes, inputs: typeof fingerprint === 'string' ? fingerprint : undefined });
  }
  return files;
}

/**
 * Writes the state file. Its files are in the order given (the plan's, for a complete build): a
 * reader makes a map of them, and sorting a quarter of a million paths, twice a build, took 0.1 s
 * (measured).
 */
async function writeState(root: string, state: Omit<State, 'files'> & { files: Iterable<[string, Written]> }) {
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
  // bytes (19.5 MB each for the large benchmark), and a column at once (up to 10 MB) stayed in the
  // heap to the end of the build, when its memory peaks: about 30 MiB more peak RSS (measured). The
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
function sameFiles(previous: Files, next: Iterable<[string, Written]>): boolean {
  let count = 0;
  for (const [file, y] of next) {
    const x = previous.get(file);
    if (x?.bytes !== y.bytes || x.inputs !== y.inputs) return false;
    count++;
  }
  return count === previous.size;
}

async function removeEmptyParents(root: string, dir: string) {
  for (let current = dir; current.startsWith(root + path.sep); current = path.dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone)
    }
  }
}

/** Runs `task` on every value, CONCURRENCY at a time; after a failure it starts no more, and returns once all have stopped. */
async function eachConcurrently<T>(values: readonly T[], task: (value: T) => Promise<void>) {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < values.length) {
      try {
        await task(values[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENCY, values.length) }, worker));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
}
