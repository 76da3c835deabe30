// Part of stage 4, write: stamps of the output's folders, which let a rebuild skip listing the
// output folder (a quarter of a million files in the large benchmark). Adding, removing or
// renaming an entry of a folder changes the folder's modification and change times: while every
// folder that holds files of ours has the device, inode and times it had when the build that
// wrote them ended, each holds the names it held then, which were the record's. A file's bytes
// changed under the same name are not seen, as the listing does not see them either. Whatever
// doubts (a folder missing or changed, a stamp no older than the record) means the listing, never
// a wrong "unchanged".
import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCK_FILE_INSIDE } from '../build/lock.js';
import { isListOf, isObject, isStringPair } from '../shared/fields.js';
import type { OutputRun } from './output-run.js';
import { folderOf, inside, isPlainRelativePath, topFolderOf } from './paths.js';
import { readStateHead, STATE_FILE, writeStampsSlot, type State, type StateHead } from './state.js';
import type { Tree } from './tree.js';

/** A folder's device, inode, and modification and change times in nanoseconds. */
export function stampOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** The folders that hold `files`, and the output folder itself (''), sorted. */
export function foldersOf(files: Iterable<string>): string[] {
  const dirs = new Set<string>(['']);
  for (const file of files) {
    for (let d = path.posix.dirname(file); d !== '.' && !dirs.has(d); d = path.posix.dirname(d)) dirs.add(d);
  }
  return [...dirs].sort();
}

/** What the stamps slot holds, as JSON in base64url: the state file's size, and each folder's stamp. */
interface Stamps {
  bytes: number;
  folders: [dir: string, stamp: string][];
}

function isStamps(value: unknown): value is Stamps {
  return isObject(value) && typeof value.bytes === 'number' && isListOf(value.folders, isStringPair);
}

/** The longest stamp: four numbers of up to 20 digits and a sign, and three colons. */
const STAMP_MAX = 4 * 21 + 3;

/** The characters to keep in the state file for the stamps of `folders`. */
export function slotFor(folders: readonly string[]): number {
  let json = '{"bytes":12345678901234567890,"folders":[]}'.length;
  for (const dir of folders) json += JSON.stringify(dir).length + STAMP_MAX + 6;
  return Math.ceil(json / 3) * 4;
}

/**
 * Writes the stamps of the output's folders into the state file, once the build's last write in
 * the output folder is done: each folder's own when it was made whole in the staging folder, or
 * is as it was when listed before the build, or holds only the files of the record and the
 * foreign ones reported (listed again: the build wrote or removed files there). Otherwise, or
 * when the state file is not of this version's layout, none: the next rebuild lists the folder.
 */
export async function stampOutput(run: OutputRun): Promise<void> {
  const head = await readStateHead(run.root);
  if (!head || head.complete !== true) return;
  const stamps: [string, string][] = [];
  // Folders whose stamp changed since they were listed: those the build wrote or removed in.
  const changed: string[] = [];
  let latest = 0n;
  for (const dir of run.folders()) {
    const info = await lstat(dir === '' ? run.root : inside(run.root, dir), { bigint: true }).catch(() => undefined);
    if (!info?.isDirectory()) return void (await writeStampsSlot(head, ''));
    const stamp = stampOf(info);
    const staged = run.staging !== undefined && dir !== '' && run.staging.tops.has(topFolderOf(`${dir}/`));
    if (!staged && run.existing.stamps.get(dir) !== stamp) changed.push(dir);
    stamps.push([dir, stamp]);
    for (const time of [info.mtimeNs, info.ctimeNs]) if (time > latest) latest = time;
  }
  if (changed.length > 0) {
    const index = indexOf(run, new Set(changed));
    for (const dir of changed) if (!(await holdsOnlyOurs(run, dir, index))) return void (await writeStampsSlot(head, ''));
  }
  const text = Buffer.from(JSON.stringify({ bytes: head.bytes, folders: stamps })).toString('base64url');
  if (text === head.stamps) return;
  // The state file must be written after every stamp's time: a folder changed later in the same
  // tick of the file system's clock would keep its times (as git's racy entries). Writing it
  // again stamps it with a later time.
  for (let tries = 0; tries < 100; tries++) {
    const written = await writeStampsSlot(head, text);
    if (written === undefined || written > latest) return;
    await sleep(1);
  }
  await writeStampsSlot(head, '');
}

/** The names of the record's files by folder, the record's folders and the foreign entries. */
interface FolderIndex {
  files: Map<string, Set<string>>;
  dirs: Set<string>;
  foreign: Set<string>;
}

/** The index, with the names of the files in the folders of `dirs` only: no other is looked at. */
function indexOf(run: OutputRun, dirs: ReadonlySet<string>): FolderIndex {
  const files = new Map<string, Set<string>>();
  for (const { path: file } of run.files) {
    const slash = file.lastIndexOf('/');
    const dir = slash < 0 ? '' : file.slice(0, slash);
    if (!dirs.has(dir)) continue;
    let names = files.get(dir);
    if (!names) files.set(dir, (names = new Set()));
    names.add(file.slice(slash + 1));
  }
  return { files, dirs: new Set(run.folders()), foreign: new Set(run.foreign) };
}

/**
 * Whether folder `dir` holds the record's files there (no link at their names) and otherwise
 * only the foreign entries reported, as the listing of the next rebuild would find it
 * (tree.ts, listTree).
 */
async function holdsOnlyOurs(run: OutputRun, dir: string, index: FolderIndex): Promise<boolean> {
  const entries = await readdir(dir === '' ? run.root : inside(run.root, dir), { withFileTypes: true }).catch(() => undefined);
  if (!entries) return false;
  const names = index.files.get(dir) ?? new Set<string>();
  let found = 0;
  for (const entry of entries) {
    const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (relative === STATE_FILE || relative === LOCK_FILE_INSIDE) continue;
    if (entry.isDirectory()) {
      if (!index.dirs.has(relative) && !index.foreign.has(`${relative}/`)) return false;
    } else if (names.has(entry.name)) {
      if (entry.isSymbolicLink()) return false;
      found++;
    } else if (!index.foreign.has(relative)) {
      return false;
    }
  }
  return found === names.size;
}

/**
 * Whether every folder of the output has the stamp `head` holds for it, each older than the
 * state file's last write (see stampOutput): then it holds what the build that wrote the record
 * left there.
 */
export async function stampsHold(root: string, head: StateHead): Promise<boolean> {
  return (await heldStamps(root, head)) !== undefined;
}

/** The stamps `head` holds, by folder, when every one holds (stampsHold). */
async function heldStamps(root: string, head: StateHead): Promise<Map<string, string> | undefined> {
  const folders = headStamps(head);
  return folders && (await foldersHold(root, folders, head.mtimeNs)) ? new Map(folders) : undefined;
}

/** After the CLI's edits, the state file's stamps are not the output's: the last edit's, when every one holds. */
async function stampsAfterEdits(root: string, previous: State): Promise<Map<string, string> | undefined> {
  const after = previous.foldersAfterEdits;
  return after && (await foldersHold(root, after.stamps, after.before)) ? new Map(after.stamps) : undefined;
}

/** The folder stamps `head` holds, each folder's; undefined when it holds none, or not of its file. */
export function headStamps(head: StateHead): [dir: string, stamp: string][] | undefined {
  if (head.stamps === '') return undefined;
  let stamps: unknown;
  try {
    stamps = JSON.parse(Buffer.from(head.stamps, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isStamps(stamps)) return undefined;
  return stamps.bytes === head.bytes && stamps.folders.some(([dir]) => dir === '') ? stamps.folders : undefined;
}

/** Whether each folder has its stamp, made before `before`: then it holds the names it held when stamped. */
export async function foldersHold(root: string, folders: readonly (readonly [dir: string, stamp: string])[], before: bigint): Promise<boolean> {
  const held = await Promise.all(
    folders.map(async ([dir, stamp]) => {
      if (dir !== '' && !isPlainRelativePath(dir)) return false;
      const info = await lstat(dir === '' ? root : inside(root, dir), { bigint: true }).catch(() => undefined);
      return info !== undefined && stampOf(info) === stamp && info.mtimeNs < before && info.ctimeNs < before;
    }),
  );
  return held.every(Boolean);
}

/** The stamps of `folders` as they are now, and the latest of their times; undefined when one is not a folder. */
export async function stampFolders(root: string, folders: readonly string[]): Promise<{ stamps: [string, string][]; latest: bigint } | undefined> {
  const stamps: [string, string][] = [];
  let latest = 0n;
  for (const dir of folders) {
    const info = await lstat(dir === '' ? root : inside(root, dir), { bigint: true }).catch(() => undefined);
    if (!info?.isDirectory()) return undefined;
    stamps.push([dir, stampOf(info)]);
    for (const time of [info.mtimeNs, info.ctimeNs]) if (time > latest) latest = time;
  }
  return { stamps, latest };
}

/**
 * The output folder as listTree would find it, worked out from the last build's record without
 * listing it, when every folder's stamp holds: each folder holds the record's files and the
 * foreign entries it reported, nothing else (no temporary file, nothing in the way of a folder of
 * the record). Undefined when a stamp doubts, or when a foreign entry is somewhere the stamps do
 * not cover (in a folder the record has no file in, which anything may have changed since), or
 * is where one of this build's files or `folders` goes (the listing would count it as ours, look
 * inside it, or report it in the way), or a file of the record is where one of `folders` goes.
 * Listing a quarter of a million files took a one-item rebuild about a second (bench/README.md,
 * 'Folder stamps').
 */
export async function treeByStamps(
  root: string,
  previous: State,
  head: StateHead | undefined,
  planned: (file: string) => boolean,
  folders: () => readonly string[],
): Promise<Tree | undefined> {
  if (!head || head.complete !== true || previous.complete !== true) return undefined;
  const stamps = previous.edited ? await stampsAfterEdits(root, previous) : await heldStamps(root, head);
  if (!stamps) return undefined;
  const ours = new Set(folders());
  const top = new Set<string>();
  for (const entry of previous.foreign) {
    const name = entry.endsWith('/') ? entry.slice(0, -1) : entry;
    if (!stamps.has(folderOf(name)) || ours.has(name) || planned(name)) return undefined;
    top.add(topFolderOf(`${name}/`));
  }
  for (const file of previous.files.paths()) {
    if (ours.has(file)) return undefined;
    top.add(topFolderOf(file) || file);
  }
  return {
    has: (file, index) => (index === undefined ? previous.files.has(file) : previous.files.hasPlanned(index, file)),
    foreign: [...previous.foreign].sort(),
    top,
    inTheWay: [],
    temporary: [],
    stamps,
  };
}
