// Part of stage 4, write: one build's writing of the output folder, prepared. What it writes,
// what the last build left, what is in the folder now, and the record of intent made before the
// first write there.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { IoError, ioFailure } from '../diagnostics/index.js';
import type { OutputFile } from '../plan/index.js';
import { topFolderOf } from './paths.js';
import { UNKNOWN, writeState, type State, type StateHead, type Written } from './state.js';
import { foldersOf, treeByStamps } from './stamps.js';
import type { LargestFiles } from './largest-files.js';
import { listTree, removeAll, stageNewFolders, stagingDirOf, type Tree } from './tree.js';

export interface WriteResult {
  files: number;
  bytes: number;
  written: number;
  unchanged: number;
  removed: number;
  largest: { path: string; bytes: number };
  /** The largest files, for an edit that makes the largest smaller or removes it. */
  largestFiles: LargestFiles;
  /** Files, bytes and files written per resource (manifest, catalog, meta, stream, subtitles, asset, page, host). */
  byResource: Record<string, { files: number; bytes: number; written: number }>;
  /**
   * Files (and folders, ending in `/`) in the output folder that addon-gen did not write, seen
   * for the first time: they are left alone, and reported by one build only.
   */
  foreign: string[];
  /**
   * The manifests this build removed (`quality=sd/manifest.json`): each was an address people may
   * have installed, which no longer answers.
   */
  removedManifests: string[];
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

/** What was written for each file, by position: its size, and the fingerprint of its inputs. */
export interface Recorded {
  bytes: Float64Array;
  inputs: (string | undefined)[];
}

/** One writeOutput: its files, the last build's state, the folder as listed, and what is done so far. */
export interface OutputRun {
  root: string;
  files: readonly OutputFile[];
  previous: State;
  options: WriteOptions;
  result: WriteResult;
  /**
   * What was written for each of `files`, by position, column by column: a map of their paths to
   * it costs a first build main-thread time and peak RSS, and so does an object for each
   * (figures: bench/README.md, 'What was written, by position').
   */
  recorded: Recorded;
  /** The output folder as listed before anything was written. */
  existing: Tree;
  /** Files of others in the output folder, reported or not. */
  foreign: string[];
  /** The staging folder, and the top folders made whole in it (see stageNewFolders). */
  staging: { dir: string; tops: Set<string> } | undefined;
  /** Whether a path is one of `files`. */
  planned(file: string): boolean;
  /** Lists the output folder again (after a failure, for the temporary files left). */
  listAgain(): Promise<Tree>;
  /** Whether a file is made in the staging folder. */
  isStaged(file: string): boolean;
  /** Records the intent before the first write in the output folder; the same promise each time. */
  recordIntent(): Promise<void>;
  /** Whether recordIntent was called: the record then says incomplete until the complete one. */
  intentBegun: boolean;
  /** Whether files of the output folder may have changed: once the record says the build is incomplete. */
  touched: boolean;
  /** Files done, for `onFile`. */
  done: number;
  /** The folders that hold `files`, and the output folder itself (''): worked out once, when first asked. */
  folders(): string[];
}

/**
 * Lists the output folder (or finds it by its folders' stamps), refuses what is in the way,
 * sweeps up the leftovers of an interrupted build and makes the staging folder: nothing of the
 * output is touched yet.
 */
export async function prepareOutput(
  root: string,
  files: readonly OutputFile[],
  previous: State,
  head: StateHead | undefined,
  options: WriteOptions,
): Promise<OutputRun> {
  const result: WriteResult = {
    files: files.length,
    bytes: 0,
    written: 0,
    unchanged: 0,
    removed: 0,
    largest: { path: '', bytes: 0 },
    largestFiles: { files: [], below: 0 },
    byResource: {},
    foreign: [],
    removedManifests: [],
  };
  const planned = plannedPaths(files);
  // A file the last build recorded that is not planned is one it matched to no planned file.
  const ours = (file: string) => planned(file) || previous.files.hasBesidesPlan(file);
  const listAgain = () =>
    listTree(
      root,
      function* () {
        for (const file of files) yield file.path;
        yield* previous.files.besidesPlan();
      },
      ours,
    );
  let folders: string[] | undefined;
  const foldersOfFiles = () => (folders ??= foldersOf(files.map((file) => file.path)));
  // Listed unless the folders' stamps say what it holds.
  const existing = (await treeByStamps(root, previous, head, planned, foldersOfFiles)) ?? (await listAgain());
  refuseWhatIsInTheWay(root, existing);
  // Leftovers of an interrupted build, or of one that failed.
  await Promise.all([removeAll(root, existing.temporary), rm(stagingDirOf(root), { recursive: true, force: true })]).catch((error: unknown) => {
    throw ioFailure(error, 'Nothing was written.');
  });
  const foreign = existing.foreign;
  const staging = await stageNewFolders(root, files, existing.top);
  const reported = new Set(previous.foreign);
  result.foreign = foreign.filter((f) => !reported.has(f));
  const isStaged = (file: string) => staging !== undefined && staging.tops.has(topFolderOf(file));
  const run: OutputRun = {
    root,
    files,
    previous,
    options,
    result,
    recorded: { bytes: new Float64Array(files.length), inputs: new Array<string | undefined>(files.length) },
    existing,
    foreign,
    staging,
    planned,
    listAgain,
    isStaged,
    recordIntent: () => Promise.resolve(),
    intentBegun: false,
    touched: false,
    done: 0,
    folders: foldersOfFiles,
  };
  run.recordIntent = intentRecorder(run);
  return run;
}

/**
 * Whether a path is one of `files`. A rebuild asks only about files on disk that the last build
 * did not write (a CNAME, say) and, when some of its files are stale, about those: the first few
 * are looked for one by one, and a set of all the paths (which slowed a one-item rebuild:
 * bench/README.md, 'Planned paths looked up one by one') is made only for more.
 */
function plannedPaths(files: readonly OutputFile[]): (file: string) => boolean {
  let paths: Set<string> | undefined;
  let lookups = 0;
  return (file) => {
    if (paths === undefined && lookups++ < 8) return files.some((f) => f.path === file);
    return (paths ??= new Set(files.map((f) => f.path))).has(file);
  };
}

/**
 * Where a folder of ours goes, a link leads out of the output folder: writing (and removing)
 * files below it would change files elsewhere. A file there would stop the build half-way.
 * Both are refused before anything is touched.
 */
function refuseWhatIsInTheWay(root: string, existing: Tree): void {
  const [blocked] = existing.inTheWay;
  if (!blocked) return;
  const at = path.join(root, blocked.path);
  throw new IoError(
    blocked.link
      ? `${at} is a symbolic link, where the build writes a folder of the addon: addon-gen writes only inside ${root}, never through links. Nothing was written; remove the link (or make it a real folder) and build again`
      : `${at} is a file, where the build writes a folder of the addon. Nothing was written; move the file away and build again`,
    at,
  );
}

/**
 * Before the first write in the output folder, record every path this build may touch there as
 * incomplete: if it is interrupted, the next build knows the files it may have left, and
 * compares them all. A build that changes nothing writes no state at all. Staged files are not
 * in it: the output holds none of them until the complete record is made, and a first build's
 * record is then a few files, not every path, which held up its first writes (figures:
 * bench/README.md, 'The intent record').
 */
function intentRecorder(run: OutputRun): () => Promise<void> {
  let started: Promise<void> | undefined;
  const { root, files, previous, foreign } = run;
  return () => {
    if (started) return started;
    run.intentBegun = true;
    // The files of the last build, then those only this one has: a map of them all was a quarter
    // of a million entries more to make while the threads wait. Found once: writeState goes over
    // the files once for each of its columns.
    const added = files.filter((file, index) => !previous.files.hasPlanned(index, file.path) && !run.isStaged(file.path));
    const intent = function* (): Generator<[string, Written]> {
      yield* previous.files.entries();
      for (const file of added) yield [file.path, UNKNOWN];
    };
    return (started = writeState(root, { files: intent, complete: false, foreign }).then(() => {
      run.touched = true;
    }));
  };
}
