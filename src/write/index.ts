// Stage 4, write: the only code that touches the output folder. Each file is written atomically
// (a temporary file, then a rename) and only when its bytes changed; files an earlier build wrote
// and this one does not are removed. Files the build never wrote are left alone.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ioFailure } from '../diagnostics/index.js';
import type { OutputFile } from '../plan/index.js';
import { prepareOutput, type OutputRun, type WriteOptions, type WriteResult } from './output-run.js';
import { stampOutput, stampsHold } from './stamps.js';
import { EDITED, filesOf, foreignOf, readStateFile, readStateHead } from './state.js';
import { readPreviousState } from './previous-files.js';
import { filesEditsWrote } from './edit-journal.js';
import { listTree, removeAll } from './tree.js';
import { createOutputFiles, moveStagedFoldersIn, recordComplete, removeStaleFiles } from './write-files.js';

export type { WriteOptions, WriteResult } from './output-run.js';
export { STATE_FILE, stateFileOf } from './state.js';
export { stagingDirOf } from './tree.js';
export { linkOutput } from './link-output.js';
export { keptFileOf, openKeptFile, startKeptFile, type KeptFile, type KeptFileWriter } from './kept-file.js';
export {
  journalFileOf,
  outputFiles,
  outputPathsFree,
  outputSizes,
  outputBytes,
  readEditJournal,
  readOutputFiles,
  removeEditJournal,
  removeOutputFiles,
  stateIdentity,
  writeEditJournal,
  writeOutputFiles,
  type EditJournal,
  type OutputFiles,
} from './edit-journal.js';
export { foldersHold, headStamps, stampFolders } from './stamps.js';
export { addLargest, largestFilesAfter, largestIn, type LargestFiles } from './largest-files.js';
export { EDITED, readStateHead, writeStampsSlot } from './state.js';

/** Writes `files` below `outDir`; their paths are distinct (plan reports two files at one path). */
export async function writeOutput(outDir: string, files: readonly OutputFile[], options: WriteOptions = {}): Promise<WriteResult> {
  const root = path.resolve(outDir);
  await mkdir(root, { recursive: true }).catch((error: unknown) => {
    throw ioFailure(error, 'Nothing was written.');
  });
  // What the CLI's edits wrote since the state file (build/edit.ts): compared, not trusted; all of
  // it, when their record is gone.
  const previous = await readPreviousState(root, files, () => filesEditsWrote(root));
  const run = await prepareOutput(root, files, previous, await readStateHead(root), options);
  try {
    await createOutputFiles(run);
    await removeStaleFiles(run);
    await recordComplete(run);
    await moveStagedFoldersIn(run);
    // After the last write in the output folder. Only a faster next rebuild hangs on it.
    await stampOutput(run).catch(() => {});
  } catch (error) {
    // Threads stopped mid-file may have left temporary files: the tree is listed again for them.
    await run
      .listAgain()
      .then((now) => removeAll(root, now.temporary))
      .catch(() => {});
    throw ioFailure(error, outcomeOfFailure(run));
  } finally {
    if (run.staging) await rm(run.staging.dir, { recursive: true, force: true }).catch(() => {});
  }
  return run.result;
}

/** What the output folder holds after a build failed, in words. */
function outcomeOfFailure({ root, touched, previous }: OutputRun): string {
  return !touched
    ? `Nothing in ${root} changed`
    : previous.files.size === 0
      ? `${root} holds part of this build, each file whole; the next build that can write completes it`
      : `${root} now holds some files of this build and the others of the last one, each whole; the next build that can write completes it`;
}

/**
 * What `holds` makes of the record of the build that wrote `outDir`, when that build was
 * complete and every file it wrote is still there, with no other file new since. (Files are
 * trusted to hold what was written, as `writeOutput` trusts them.) The record is judged first,
 * from the head of the state file alone; then the stamps of the output's folders tell whether
 * they hold the names they held when it was written (stamps.ts). Only when they doubt is the
 * folder listed, and the whole state file read: when the content changed, listing a quarter of a
 * million files only to find them all there slowed a one-item rebuild (figures: bench/README.md,
 * 'Record judged before listing' and 'Folder stamps').
 */
export async function intactOutput<T>(outDir: string, holds: (record: unknown) => Promise<T | undefined> | T | undefined): Promise<T | undefined> {
  const root = path.resolve(outDir);
  const head = await readStateHead(root);
  let held: T | undefined;
  if (head) {
    // Edits since the record wrote files it does not describe (build/edit.ts).
    if (head.stamps === EDITED) return undefined;
    if (head.complete === false || head.record === undefined) return undefined;
    held = await holds(head.record);
    if (held === undefined) return undefined;
    if (await stampsHold(root, head)) return held;
  }
  // Its files are made into a map only once the record holds: a map of them all takes time (same
  // entry).
  const read = await readStateFile(root);
  if (!read || read.state.complete === false || read.state.record === undefined) return undefined;
  if (!head) held = await holds(read.state.record);
  if (held === undefined) return undefined;
  const files = filesOf(read.state);
  if (files.size === 0) return undefined;
  const paths = [...files.keys()];
  const existing = await listTree(
    root,
    () => paths,
    (file) => files.has(file),
  );
  const reported = new Set(foreignOf(read.state));
  if (!paths.every((file) => existing.has(file)) || existing.foreign.some((f) => !reported.has(f))) return undefined;
  return held;
}
