// Part of stage 4, write: the output folder as it is on disk. Listing it, the paths below it a
// build may touch, the staging folder beside it, and removing what a build left.
import { readdir as readdirCallback } from 'node:fs';
import { lstat, mkdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { LOCK_FILE_INSIDE } from '../build/lock.js';
import type { OutputFile } from '../plan/index.js';
import { inside, topFolderOf } from './paths.js';
import { STATE_FILE, TEMP_SUFFIX } from './state.js';
import { besideOutput, isWithin } from '../shared/locations.js';
import { stampOf } from './stamps.js';

/**
 * The end of the name of the folder beside the output folder where new folders are made. A
 * temporary file and a rename per file cost this machine's disk more than writing the files
 * (figures: bench/README.md, 'Staging folders'): a folder that is not in
 * the output yet is made whole there and moves in with one rename, never seen half-written.
 */
const STAGING_SUFFIX = '.addon-gen-staging';
const readdirFast = (dir: string) => promisify(readdirCallback)(dir, { withFileTypes: true });

/** The output folder as listed (see listTree). */
export interface Tree {
  /** Whether a file is at `path`; `planned` is its index among the planned files, when it is one. */
  has(path: string, planned?: number): boolean;
  foreign: string[];
  /** The names at the top of the output folder. */
  top: Set<string>;
  inTheWay: { path: string; link: boolean }[];
  temporary: string[];
  /** The stamp of each folder listed (see stampOf), taken just before it was listed. */
  stamps: Map<string, string>;
}

/**
 * What is in the output folder: `has(path)` for the files below folders that hold ours, and the
 * other entries, not descending into folders that hold none of ours (a `.git`, say). The folders
 * of `paths` are worked out only when the output folder has a folder: not for a first build.
 * Also what is in the way where a folder of ours belongs (a link, a file), and the temporary
 * files of builds that were cut off or failed, found on the way.
 */
export async function listTree(root: string, paths: () => Iterable<string>, ours: (path: string) => boolean): Promise<Tree> {
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
  const stamps = new Map<string, string>();
  const visit = async (dir: string): Promise<void> => {
    const at = dir === '' ? root : path.join(root, dir);
    // Before the listing: a change in between makes the stamp older than what was listed.
    const info = await lstat(at, { bigint: true }).catch(() => undefined);
    if (info) stamps.set(dir, stampOf(info));
    const entries = await readdirFast(at).catch(() => []);
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
  return { has, foreign: foreign.sort(), top, inTheWay: inTheWay.sort((a, b) => (a.path < b.path ? -1 : 1)), temporary, stamps };
}

/** Beside the output folder, where new folders are made before they move in. */
export function stagingDirOf(root: string): string {
  return besideOutput(root, STAGING_SUFFIX);
}

/**
 * The top folders of `files` that nothing in the output folder is named like yet (all of them, in
 * a first build), with the staging folder they are made in: their files need no temporary file
 * and rename each, since the whole folder moves in at once. None when the staging folder cannot
 * be made on the same file system (a rename could not move it then).
 */
export async function stageNewFolders(root: string, files: readonly OutputFile[], present: ReadonlySet<string>) {
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
export async function removeAll(root: string, relative: readonly string[]) {
  await Promise.all(relative.map((file) => rm(inside(root, file), { force: true })));
}

export async function removeEmptyParents(root: string, dir: string) {
  for (let current = dir; isWithin(root, current); current = path.dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone)
    }
  }
}
