// Stage 4, write: the only code that touches the output folder. Each file is written atomically
// (temporary name, then rename) and only when its bytes changed; files an earlier build wrote and
// this one does not are removed. Files the build never wrote are left alone.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutputFile } from './plan.js';

/** The build's own bookkeeping: the files it wrote last time. Host rules keep it unpublished. */
export const STATE_FILE = '.addon-gen.json';
const CONCURRENCY = 16;

export interface WriteResult {
  files: number;
  bytes: number;
  written: number;
  unchanged: number;
  removed: number;
  largest: { path: string; bytes: number };
  /** Files and bytes per resource (manifest, catalog, meta, stream, subtitles, asset). */
  byResource: Record<string, { files: number; bytes: number }>;
}

export async function writeOutput(outDir: string, files: readonly OutputFile[]): Promise<WriteResult> {
  const root = path.resolve(outDir);
  await mkdir(root, { recursive: true });
  const previous = await readState(root);
  const result: WriteResult = {
    files: files.length,
    bytes: 0,
    written: 0,
    unchanged: 0,
    removed: 0,
    largest: { path: '', bytes: 0 },
    byResource: {},
  };
  const madeDirs = new Set<string>();

  await eachConcurrently(files, async (file) => {
    const target = inside(root, file.path);
    const bytes = file.body !== undefined ? Buffer.from(file.body) : await readFile(file.copyFrom!);
    const tally = (result.byResource[file.resource] ??= { files: 0, bytes: 0 });
    tally.files++;
    tally.bytes += bytes.length;
    result.bytes += bytes.length;
    if (bytes.length > result.largest.bytes) result.largest = { path: file.path, bytes: bytes.length };
    const dir = path.dirname(target);
    if (!madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      madeDirs.add(dir);
    }
    if (await writeIfChanged(target, bytes)) result.written++;
    else result.unchanged++;
  });

  const current = new Set(files.map((f) => f.path));
  const stale = previous.filter((p) => !current.has(p));
  for (const file of stale) {
    await rm(inside(root, file), { force: true });
    await removeEmptyParents(root, path.dirname(inside(root, file)));
    result.removed++;
  }
  await writeState(root, [...current]);
  return result;
}

/** Resolves an output path and makes sure it stays inside the output folder. */
function inside(root: string, relative: string): string {
  const target = path.resolve(root, relative);
  if (!target.startsWith(root + path.sep)) throw new Error(`refusing to write outside the output folder: ${relative}`);
  return target;
}

/**
 * Writes `bytes` to `target` unless it already holds them, through a temporary file and a rename
 * so that no reader (nor an interrupted build) ever sees half a file. Returns whether it wrote.
 */
async function writeIfChanged(target: string, bytes: Buffer): Promise<boolean> {
  const existing = await readFile(target).catch(() => undefined);
  if (existing?.equals(bytes)) return false;
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, target);
  return true;
}

/** A missing or unreadable state file means "nothing known": the build still ends up correct. */
async function readState(root: string): Promise<string[]> {
  try {
    const state = JSON.parse(await readFile(path.join(root, STATE_FILE), 'utf8')) as { files?: unknown };
    return Array.isArray(state.files) ? state.files.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

async function writeState(root: string, files: string[]) {
  const state = JSON.stringify({ generator: 'addon-gen', files: files.sort() });
  await writeIfChanged(path.join(root, STATE_FILE), Buffer.from(state));
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

async function eachConcurrently<T>(values: readonly T[], task: (value: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < values.length) await task(values[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, values.length) }, worker));
}
