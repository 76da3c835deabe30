// Part of stage 4, write: the steps of writing the output folder, once it is prepared
// (output-run.ts): create the files, remove the stale ones, record what was written, move the
// staged folders in.
import { readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../diagnostics/index.js';
import { foldPath, MANIFEST_FILE } from '../shared/paths.js';
import type { OutputFile } from '../plan/index.js';
import { type BatchBuilder, startFileCreator } from './create-files.js';
import type { OutputRun } from './output-run.js';
import { inside } from './paths.js';
import { TEMP_SUFFIX, writeState, type Written } from './state.js';
import { slotFor } from './stamps.js';
import { removeEmptyParents } from './tree.js';
import { addLargest } from './largest-files.js';
import { eachConcurrently } from '../shared/concurrently.js';

/** Threads that create files, and the number of files from which a build starts them. */
const THREADS = 2;
const THREADS_FROM = 1000;
/** Files per message to a thread, and messages in flight: the threads never wait for the next. */
const BATCH_FILES = 64;
const CONCURRENCY = 4;

/** Renders the files and has threads create them; the threads end before the record is made. */
export async function createOutputFiles(run: OutputRun): Promise<void> {
  const { files, previous, result } = run;
  const { onFile } = run.options;
  // The threads decide whether each file is written; the record of intent is their cue before
  // the first write in the output folder.
  const creator = startFileCreator(files.length >= THREADS_FROM ? THREADS : 0, TEMP_SUFFIX, run.recordIntent);
  try {
    await eachConcurrently(groupsOf(files.length), CONCURRENCY, async ([from, to]) => {
      const batch = creator.batch(!previous.complete);
      const queued: OutputFile[] = [];
      for (let index = from; index < to; index++) {
        const file = files[index]!;
        // Assets are copied from the content folder; every other body is rendered as it is added.
        const copy = file.copyFrom === undefined ? undefined : await readFile(file.copyFrom);
        if (addUnlessUnchanged(run, index, batch, copy)) queued.push(file);
        else onFile?.(++run.done);
      }
      const created = await batch.send();
      queued.forEach((file, i) => {
        if (created.written[i]) {
          result.written++;
          result.byResource[file.resource]!.written++;
        } else {
          result.unchanged++;
        }
        onFile?.(++run.done);
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
function addUnlessUnchanged(run: OutputRun, index: number, batch: BatchBuilder, copy: Buffer | undefined): boolean {
  const { previous, staging } = run;
  const file = run.files[index]!;
  const before = previous.files.atPlanned(index, file.path);
  // The listing says whether nobody removed the file since the last build: one readdir per
  // folder, not a stat per file.
  const trusted = previous.complete && before && before.bytes >= 0 && run.existing.has(file.path, index) ? before : undefined;
  // Rendered from the same inputs as the file a complete build left: the same bytes.
  if (trusted && file.inputs !== undefined && trusted.inputs === file.inputs) {
    count(run, index, trusted.bytes, trusted.inputs);
    run.result.unchanged++;
    return false;
  }
  const body = copy ?? (typeof file.body === 'function' ? file.body() : (file.body ?? ''));
  const staged = staging !== undefined && run.isStaged(file.path);
  // After a complete build, a file of the size it recorded is compared with the new bytes. After
  // an interrupted one, any file may hold the bytes of the build that was cut off, whatever its
  // size: the thread compares them all.
  const bytes = batch.add(inside(staged ? staging.dir : run.root, file.path), body, staged, trusted?.bytes);
  count(run, index, bytes, file.inputs);
  return true;
}

/** Records what was written for `files[index]`, and adds it to the result's tallies. */
function count(run: OutputRun, index: number, bytes: number, inputs: string | undefined): void {
  const { result } = run;
  const file = run.files[index]!;
  run.recorded.bytes[index] = bytes;
  run.recorded.inputs[index] = inputs;
  const tally = (result.byResource[file.resource] ??= { files: 0, bytes: 0, written: 0 });
  tally.files++;
  tally.bytes += bytes;
  result.bytes += bytes;
  if (bytes > result.largest.bytes) result.largest = { path: file.path, bytes };
  addLargest(result.largestFiles, file.path, bytes, index);
}

/** Removes the files the last build wrote and this one does not. */
export async function removeStaleFiles(run: OutputRun): Promise<void> {
  const { previous } = run;
  // Nothing is stale when every file the last build wrote is planned again (plan's paths are distinct).
  let kept = 0;
  run.files.forEach((file, index) => {
    if (previous.files.hasPlanned(index, file.path)) kept++;
  });
  if (kept === previous.files.size) return;
  let byFolded: Map<string, string> | undefined;
  // Those matched to a planned file are planned.
  for (const file of [...previous.files.besidesPlan()]) {
    if (run.planned(file)) continue;
    const target = inside(run.root, file);
    // On a file system that ignores case (macOS, Windows) a stale path can name a file written
    // now: `search=Star wars.json` is `search=Star Wars.json` there, and removing one removes both.
    byFolded ??= new Map(run.files.map((f) => [foldPath(f.path), f.path]));
    const twin = byFolded.get(foldPath(file));
    if (twin !== undefined && (await sameFile(target, inside(run.root, twin)))) continue;
    await run.recordIntent();
    await rm(target, { force: true });
    await removeEmptyParents(run.root, path.dirname(target));
    run.result.removed++;
    if (path.posix.basename(file) === MANIFEST_FILE) run.result.removedManifests.push(file);
  }
}

/** Whether two paths name one file (the same device and inode), as on a file system that ignores case. */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [one, other] = await Promise.all([stat(a, { bigint: true }).catch(() => undefined), stat(b, { bigint: true }).catch(() => undefined)]);
  return one !== undefined && other !== undefined && one.dev === other.dev && one.ino === other.ino;
}

/** Records what was written, as complete, when it differs from what the last build recorded. */
export async function recordComplete(run: OutputRun): Promise<void> {
  const { files, previous, recorded, result, foreign } = run;
  // Every file was counted: each has what was written.
  const nextFiles = function* (): Generator<[string, Written]> {
    for (let i = 0; i < files.length; i++) yield [files[i]!.path, { bytes: recorded.bytes[i]!, inputs: recorded.inputs[i] }];
  };
  const record = run.options.record?.(result);
  const changed =
    run.intentBegun ||
    !previous.complete ||
    previous.inside ||
    result.foreign.length > 0 ||
    !previous.files.recordsTheSame(nextFiles()) ||
    JSON.stringify(record) !== JSON.stringify(previous.record);
  if (changed || foreign.length !== previous.foreign.length) {
    await writeState(run.root, { files: nextFiles, complete: true, foreign, record }, slotFor(run.folders()));
  }
}

/**
 * Each new folder moves in whole, complete: one rename. After the complete record, which lists
 * their files: a build cut off between the two leaves a record of files some of which are
 * missing, and the next build writes those again, as it does any missing file.
 */
export async function moveStagedFoldersIn(run: OutputRun): Promise<void> {
  const { staging } = run;
  if (!staging) return;
  for (const top of staging.tops) {
    await rename(path.join(staging.dir, top), path.join(run.root, top)).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error;
    });
  }
}

/** The positions of `count` files in groups of BATCH_FILES, [from, to): one message to a thread each. */
function groupsOf(count: number): [from: number, to: number][] {
  const groups: [number, number][] = [];
  for (let from = 0; from < count; from += BATCH_FILES) groups.push([from, Math.min(from + BATCH_FILES, count)]);
  return groups;
}
