// Real temporary folders for tests: write content files, read output trees, clean up after each test.
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { journalFileOf, keptFileOf, stateFileOf } from '../../src/write/index.js';

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map(removeOutput));
});

/**
 * Removes a folder, and what a build whose output folder it was keeps beside it: `<out>-s3`,
 * where its S3 files go by default, the bookkeeping of both, and what it keeps for the next build
 * and its edits.
 */
export async function removeOutput(dir: string): Promise<void> {
  const folders = [dir, `${dir}-s3`];
  const beside = [...folders.map(stateFileOf), keptFileOf(dir), journalFileOf(dir)];
  await Promise.all([...folders, ...beside].map((f) => rm(f, { recursive: true, force: true })));
}

/** A fresh temporary folder, removed after the current test. */
export async function tempDir(prefix = 'addon-gen-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `files` (relative path -> text or bytes) into a new folder and returns its path. */
export async function contentDir(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await tempDir();
  for (const [relative, data] of Object.entries(files)) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data);
  }
  return dir;
}

/** Every file below `dir`, as relative path (forward slashes) -> bytes. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const tree = new Map<string, Buffer>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    tree.set(path.relative(dir, absolute).split(path.sep).join('/'), await readFile(absolute));
  }
  return tree;
}

/** A minimal valid addon.yaml, with extra lines appended. */
export function addonYaml(extra = ''): string {
  return `id: org.example.test\nversion: 1.0.0\nname: Test Addon\ndescription: For tests\n${extra}`;
}

/** `count` movie items as one YAML list, ids `t:0001`…, with optional genres per index. */
export function movies(count: number, genres: (index: number) => string[] = () => []): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `t:${String(i).padStart(4, '0')}`;
    lines.push(`- id: "${id}"`, '  type: movie', `  name: Movie ${i}`);
    const g = genres(i);
    if (g.length > 0) lines.push(`  genres: [${g.join(', ')}]`);
    lines.push(`  streams: [{ url: "https://example.org/${i}.mp4" }]`);
  }
  return `${lines.join('\n')}\n`;
}
