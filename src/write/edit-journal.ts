// Part of stage 4, write: the record of the CLI's one-item edits (build/edit.ts), in a file
// beside the output folder (`.dist.addon-gen-edits` for `dist`), and the few files such an edit
// writes. An edit leaves the state file as the last whole build wrote it: the record says which
// paths an edit wrote since, so that the next whole build compares them rather than trust what
// the state file says of them. Only ever a speed-up: a record that cannot be read or written is
// as if there were none, and then every build takes the whole path.
import { closeSync, constants, fstatSync, openSync, readFileSync, type BigIntStats } from 'node:fs';
import { lstat, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { filesOf, readStateFile, stateFileOf, TEMP_SUFFIX, UNKNOWN, type Written } from './state.js';
import { createNew } from './new-file.js';
import { folderOf, inside } from './paths.js';
import { removeEmptyParents } from './tree.js';
import { besideOutput } from '../shared/locations.js';
import { foldPath } from '../shared/paths.js';
import { fieldOf, isCount, isListOf, isString, isStringPair } from '../shared/fields.js';
import type { EditsSince } from './previous-files.js';
import { eachConcurrently } from '../shared/concurrently.js';

export const EDITS_FILE = '.addon-gen-edits';

/** What the CLI's edits since the last whole build wrote, and what they keep for the next edit. */
export interface EditJournal {
  /** The state file the edits are since (stateIdentity): another means a build wrote since. */
  state: string;
  /** An edit was writing, and did not end: its files may be anything. */
  pending: boolean;
  /** The output paths edits wrote since the state file was: their bytes are not what it says. */
  unknown: string[];
  /** The size of what an edit wrote at each of `unknown`. */
  sizes: number[];
  /** The output paths edits removed since the state file was (and did not write again). */
  removed: string[];
  /** What build/edit.ts keeps for the next edit, checked there. */
  kept: unknown;
}

/** A record of edits as read: with the modification time its file had. */
export type ReadEditJournal = EditJournal & { mtimeNs: bigint };

/** Files read or written at a time. */
const FILES_AT_ONCE = 16;

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Beside the output folder, as the state file is. */
export function journalFileOf(root: string): string {
  return besideOutput(root, EDITS_FILE);
}

/** The record of the edits into `outDir`, if there is one this code can read. */
export async function readEditJournal(outDir: string): Promise<ReadEditJournal | undefined> {
  try {
    const handle = await open(journalFileOf(path.resolve(outDir)), READ_FLAGS);
    try {
      const stats = await handle.stat({ bigint: true });
      if (!stats.isFile()) return undefined;
      const value: unknown = deserialize(await handle.readFile());
      const [state, pending, unknown, sizes, removed = []] = ['state', 'pending', 'unknown', 'sizes', 'removed'].map((name) => fieldOf(value, name));
      if (typeof state !== 'string' || typeof pending !== 'boolean' || !isListOf(unknown, isString) || !isListOf(removed, isString)) return undefined;
      if (!Array.isArray(sizes) || sizes.length !== unknown.length || !sizes.every(isCount)) return undefined;
      return { state, pending, unknown, sizes, removed, kept: fieldOf(value, 'kept'), mtimeNs: stats.mtimeNs };
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Puts `journal` in place of the last, whole or not at all; its modification time, or undefined when it could not be written. */
export async function writeEditJournal(outDir: string, journal: EditJournal): Promise<bigint | undefined> {
  const target = journalFileOf(path.resolve(outDir));
  const scratch = `${target}${TEMP_SUFFIX}`;
  try {
    const handle = await createNew(scratch);
    try {
      await handle.writeFile(serialize(journal));
    } finally {
      await handle.close();
    }
    await rename(scratch, target);
    return (await lstat(target, { bigint: true })).mtimeNs;
  } catch {
    await rm(scratch, { force: true }).catch(() => {});
    return undefined;
  }
}

/**
 * What the edits since the state file wrote in the output, by path: the size of each, so that a
 * build compares it with what it renders there, and the paths they removed; what was written or
 * removed is unknown when an edit did not end. Undefined when their record cannot be read.
 */
export async function filesEditsWrote(root: string): Promise<EditsSince | undefined> {
  const journal = await readEditJournal(root);
  if (!journal) return undefined;
  const written = journal.unknown.map((file, i): [string, Written] => [file, journal.pending ? UNKNOWN : { bytes: journal.sizes[i]! }]);
  if (journal.pending) return { written: [...written, ...journal.removed.map((file): [string, Written] => [file, UNKNOWN])], removed: [] };
  return { written, removed: journal.removed, ...(await foldersAfterEdits(root, journal)) };
}

/**
 * The output's folders as the last edit stamped them once it had written (build/edit.ts), and the
 * time its record was written after them, when they are the folders of every file the state file
 * and the edits since say the output holds: the folders of a whole build's files, when the edits
 * wrote no file in a folder of their own. Then, while each has its stamp, the output holds those
 * files and the foreign ones reported, as after a whole build (stamps.ts, treeByStamps).
 */
async function foldersAfterEdits(root: string, journal: ReadEditJournal): Promise<Pick<EditsSince, 'folders'>> {
  const folders = fieldOf(journal.kept, 'folders');
  if (!isListOf(folders, isStringPair) || journal.state !== (await stateIdentity(root))) return {};
  const stamped = new Set(folders.map(([dir]) => dir));
  return journal.unknown.every((file) => stamped.has(folderOf(file))) ? { folders: { stamps: folders, before: journal.mtimeNs } } : {};
}

/**
 * The state file of `outDir` as it is now (device, inode, size, modification time): a build that
 * writes it, or its stamps, makes another.
 */
export async function stateIdentity(outDir: string): Promise<string | undefined> {
  const stats: BigIntStats | undefined = await lstat(stateFileOf(path.resolve(outDir)), { bigint: true }).catch(() => undefined);
  return stats?.isFile() ? [stats.dev, stats.ino, stats.size, stats.mtimeNs].join(':') : undefined;
}

/**
 * The bytes at each of `paths` in the output folder, when each is a file there, read without
 * following a link; undefined when one is not (a folder of the path replaced by a link, say).
 */
export async function readOutputFiles(outDir: string, paths: Iterable<string>): Promise<Map<string, Buffer> | undefined> {
  const root = path.resolve(outDir);
  const read = new Map<string, Buffer>();
  const folders = new Map<string, boolean>();
  const plainFolder = async (folder: string): Promise<boolean> => {
    if (folder === root) return true;
    let plain = folders.get(folder);
    if (plain === undefined) {
      plain = (await lstat(folder).catch(() => undefined))?.isDirectory() === true && (await plainFolder(path.dirname(folder)));
      folders.set(folder, plain);
    }
    return plain;
  };
  let whole = true;
  const readOne = async (relative: string) => {
    const file = inside(root, relative);
    const handle = (await plainFolder(path.dirname(file))) ? await open(file, READ_FLAGS).catch(() => undefined) : undefined;
    if (!handle) return void (whole = false);
    try {
      if ((await handle.stat()).isFile()) read.set(relative, await handle.readFile());
      else whole = false;
    } finally {
      await handle.close();
    }
  };
  await eachConcurrently([...paths], FILES_AT_ONCE, readOne).catch(() => (whole = false));
  return whole ? read : undefined;
}

/** Writes each body at its path in the output folder, atomically: a temporary file, then a rename over the last one. */
export async function writeOutputFiles(outDir: string, bodies: ReadonlyMap<string, Uint8Array>): Promise<void> {
  const root = path.resolve(outDir);
  await eachConcurrently([...bodies], FILES_AT_ONCE, async ([relative, bytes]) => {
    const file = inside(root, relative);
    const scratch = `${file}${TEMP_SUFFIX}`;
    const handle = await createNew(scratch);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await rename(scratch, file);
  });
}

/** The bytes of an output file, read without following a link; undefined when it cannot be read. */
export function outputBytes(outDir: string, relative: string): Buffer | undefined {
  try {
    const fd = openSync(inside(path.resolve(outDir), relative), READ_FLAGS);
    try {
      return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The output's files, each with its size (-1 where unknown). */
export interface OutputFiles {
  /** Those the state file holds, in its order, which is the plan's. */
  placed: [path: string, bytes: number][];
  /** Those edits wrote that it does not hold: where they come in the plan is not known. */
  unplaced: [path: string, bytes: number][];
}

/**
 * The output's files once the files of `sizes` have those sizes and those `removed` are gone, the
 * others as the state file gives them; undefined when it cannot be read.
 */
export async function outputFiles(
  outDir: string,
  sizes: ReadonlyMap<string, number>,
  removed: ReadonlySet<string>,
): Promise<OutputFiles | undefined> {
  const read = await readStateFile(path.resolve(outDir));
  if (!read) return undefined;
  const files = filesOf(read.state);
  const placed: OutputFiles['placed'] = [];
  for (const [file, written] of files) if (!removed.has(file)) placed.push([file, sizes.get(file) ?? written.bytes]);
  const unplaced = [...sizes].filter(([file]) => !files.has(file));
  return { placed, unplaced };
}

/** The size of each of `paths` in the output folder, each a file there (not followed if a link); undefined when one is not. */
export async function outputSizes(outDir: string, paths: Iterable<string>): Promise<Map<string, number> | undefined> {
  const root = path.resolve(outDir);
  const sizes = new Map<string, number>();
  let whole = true;
  await eachConcurrently([...paths], FILES_AT_ONCE, async (relative) => {
    const stats = await lstat(inside(root, relative)).catch(() => undefined);
    if (stats?.isFile()) sizes.set(relative, stats.size);
    else whole = false;
  }).catch(() => (whole = false));
  return whole ? sizes : undefined;
}

/**
 * Whether each of `paths` may be written as a new file: its folder is there, and holds no file
 * whose path is it but for letter case or Unicode normalization (plan/conflicts.ts), other than
 * those of `leaving`, which go.
 */
export async function outputPathsFree(outDir: string, paths: Iterable<string>, leaving: ReadonlySet<string>): Promise<boolean> {
  const root = path.resolve(outDir);
  const byFolder = new Map<string, string[]>();
  for (const file of paths) {
    const folder = path.posix.dirname(file);
    const files = byFolder.get(folder);
    if (files) files.push(file);
    else byFolder.set(folder, [file]);
  }
  // The folders listed at once: one's names are folded while the next is read.
  const free = await Promise.all(
    [...byFolder].map(async ([folder, files]) => {
      const names = await readdir(inside(root, folder)).catch(() => undefined);
      if (!names) return false;
      // Names folded, not paths: the folder is the same (50,000 names for the large benchmark's metas).
      const gone = new Set([...leaving].filter((file) => path.posix.dirname(file) === folder).map((file) => path.posix.basename(file)));
      const wanted = new Set(files.map((file) => foldPath(path.posix.basename(file))));
      return names.every((name) => gone.has(name) || !wanted.has(foldPath(name)));
    }),
  );
  return free.every(Boolean);
}

/** Removes each of `paths` from the output folder, where it is, and the folders that leaves empty, as a whole build does. */
export async function removeOutputFiles(outDir: string, paths: Iterable<string>): Promise<void> {
  const root = path.resolve(outDir);
  await eachConcurrently([...paths], FILES_AT_ONCE, async (relative) => {
    const file = inside(root, relative);
    await rm(file, { force: true });
    await removeEmptyParents(root, path.dirname(file));
  });
}

/** Removes the record of the edits: the whole build that wrote the state file since has compared their files. */
export async function removeEditJournal(outDir: string): Promise<void> {
  await rm(journalFileOf(path.resolve(outDir)), { force: true }).catch(() => {});
}
