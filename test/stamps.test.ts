// The stamps of the output's folders (src/write/stamps.ts): a rebuild with the inputs of the last
// build trusts them instead of listing the output folder, so any change to the names in a folder
// of the output must undo that trust, and what doubts must end in the listing, never in a wrong
// "unchanged".
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, realpath, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { stateFileOf } from '../src/write/index.js';
import { stampsHold } from '../src/write/stamps.js';
import { readStateHead } from '../src/write/state.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';

const execFileAsync = promisify(execFile);

const files = {
  'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
  'x.yaml': 'id: x\ntype: movie\nname: X\nstreams: [{ url: "https://example.org/x.mp4" }]\n',
  'y.yaml': 'id: y\ntype: movie\nname: Y\n',
};

/** A content folder and its output folder, built once; `out` is its real path, as the build writes it. */
async function built() {
  const dir = await contentDir(files);
  const out = await realpath(await tempDir());
  expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
  return { dir, out };
}

/** Whether the stamps in the state file of `out` hold for it now. */
async function stamped(out: string): Promise<boolean> {
  const head = await readStateHead(out);
  expect(head).toBeDefined();
  return stampsHold(out, head!);
}

describe('the stamps of the output folders', () => {
  it('hold after a build, after one that rewrote some files, and with foreign files reported', async () => {
    const { dir, out } = await built();
    expect(await stamped(out)).toBe(true);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
    // A folder the build wrote into in place, and one where a foreign file was found and reported.
    await writeFile(path.join(dir, 'x.yaml'), files['x.yaml'].replace('name: X', 'name: X2'));
    await writeFile(path.join(out, 'meta', 'notes.txt'), 'ours');
    const rebuilt = await build({ contentDir: dir, outDir: out });
    expect(rebuilt.write!.written).toBeGreaterThan(0);
    expect(rebuilt.diagnostics.map((d) => d.code)).toContain('foreign-files');
    expect(await stamped(out)).toBe(true);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
  });

  it('no longer hold when the names in a folder of the output changed, and the rebuild takes the full path', async () => {
    const cases: { name: string; change: (out: string) => Promise<unknown> }[] = [
      { name: 'a file deleted', change: (out) => rm(path.join(out, 'meta/movie/x.json')) },
      { name: 'a foreign file added in a subfolder', change: (out) => writeFile(path.join(out, 'stream/movie/extra.json'), '{}') },
      { name: 'a file renamed', change: (out) => rename(path.join(out, 'meta/movie/x.json'), path.join(out, 'meta/movie/x2.json')) },
      { name: 'a foreign folder added in a subfolder', change: (out) => mkdir(path.join(out, 'catalog/movie/extra')) },
      { name: 'a file at the top deleted', change: (out) => rm(path.join(out, 'manifest.json')) },
      {
        name: 'a file replaced by a link to a copy',
        change: async (out) => {
          const file = path.join(out, 'meta/movie/y.json');
          const copy = path.join(await tempDir(), 'y.json');
          await cp(file, copy);
          await rm(file);
          await symlink(copy, file);
        },
      },
      {
        name: 'a file added, and the folder given its times back to the nanosecond',
        change: async (out) => {
          const folder = path.join(out, 'meta/movie');
          const before = await stat(folder, { bigint: true });
          const times = path.join(await tempDir(), 'times');
          await execFileAsync('touch', ['-r', folder, times]);
          await writeFile(path.join(folder, 'extra.json'), '{}');
          await execFileAsync('touch', ['-r', times, folder]);
          expect((await stat(folder, { bigint: true })).mtimeNs).toBe(before.mtimeNs);
        },
      },
      {
        name: 'a folder replaced by a copy without one of its files',
        change: async (out) => {
          await cp(path.join(out, 'meta'), path.join(out, 'meta.copy'), { recursive: true });
          await rm(path.join(out, 'meta.copy/movie/x.json'));
          await rm(path.join(out, 'meta'), { recursive: true });
          await rename(path.join(out, 'meta.copy'), path.join(out, 'meta'));
        },
      },
    ];
    for (const { name, change } of cases) {
      const { dir, out } = await built();
      await change(out);
      expect(await stamped(out), name).toBe(false);
      const rebuilt = await build({ contentDir: dir, outDir: out });
      expect(rebuilt.ok, name).toBe(true);
      expect(rebuilt.reused, name).toBeUndefined();
      // That build stamps the folders again, as it leaves them.
      expect(await stamped(out), name).toBe(true);
    }
  });

  it('stand in for the listing of a rebuild whose content changed, but not where a reported foreign entry is in the way', async () => {
    const { dir, out } = await built();
    // Where the subtitles folder goes once an item has subtitles: reported, and stamped with the rest.
    await writeFile(path.join(out, 'subtitles'), 'theirs');
    expect((await build({ contentDir: dir, outDir: out })).diagnostics.map((d) => d.code)).toContain('foreign-files');
    expect(await stamped(out)).toBe(true);
    // A genre too: the whole build, not an edit's (build/edit.ts), which leaves the state file's stamps.
    await writeFile(path.join(dir, 'x.yaml'), files['x.yaml'].replace('name: X', 'name: X2\ngenres: [Drama]'));
    const renamed = await build({ contentDir: dir, outDir: out });
    expect(renamed.write!.written).toBeGreaterThan(0);
    expect(await stamped(out)).toBe(true);
    const before = await readTree(out);
    await writeFile(path.join(dir, 'x.yaml'), `${files['x.yaml']}subtitles: [{ lang: eng, url: "https://example.org/x.srt" }]\n`);
    await expect(build({ contentDir: dir, outDir: out })).rejects.toThrow(
      `${path.join(out, 'subtitles')} is a file, where the build writes a folder`,
    );
    expect(await readTree(out)).toEqual(before);
  });

  it('do not stand in for the listing where a reported foreign file keeps a folder the record no longer has', async () => {
    // The series catalog's folder outlives its files, for a file of someone else's in it: no stamp covers it.
    const catalogs = (series: boolean) =>
      `catalogs:\n  - { id: c, type: movie, name: C }\n${series ? '  - { id: shows, type: series, name: Shows }\n' : ''}`;
    const dir = await contentDir({ ...files, 'addon.yaml': addonYaml(catalogs(true)), 's.yaml': 'id: s\ntype: series\nname: S\n' });
    const out = await realpath(await tempDir());
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    await writeFile(path.join(out, 'catalog/series/notes.txt'), 'theirs');
    await writeFile(path.join(dir, 'addon.yaml'), addonYaml(catalogs(false)));
    await rm(path.join(dir, 's.yaml'));
    expect((await build({ contentDir: dir, outDir: out })).diagnostics.map((d) => d.code)).toContain('foreign-files');
    expect(await stamped(out)).toBe(true);
    // Where the series catalog's pages go once it is back: a link out of the output folder.
    const outside = await tempDir();
    await symlink(outside, path.join(out, 'catalog/series/shows'));
    await writeFile(path.join(dir, 'addon.yaml'), addonYaml(catalogs(true)));
    await writeFile(path.join(dir, 's.yaml'), 'id: s\ntype: series\nname: S\n');
    await expect(build({ contentDir: dir, outDir: out })).rejects.toThrow(`${path.join(out, 'catalog/series/shows')} is a symbolic link`);
    expect(await readdir(outside)).toEqual([]);
  });

  it('do not stand in for the listing where a file of the last build is where a folder of this one goes', async () => {
    const addon = addonYaml('baseUrl: https://example.org/addon/\ncatalogs:\n  - { id: c, type: movie, name: C }\n');
    const dir = await contentDir({ 'addon.yaml': addon, 'x.yaml': 'id: x\ntype: movie\nname: X\nposter: art/p\n', 'art/p': 'PNG' });
    const out = await realpath(await tempDir());
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    expect(await stamped(out)).toBe(true);
    // The copied file becomes a folder: the build refuses before it writes anything, as the listing finds.
    await rm(path.join(dir, 'art/p'));
    await mkdir(path.join(dir, 'art/p'));
    await writeFile(path.join(dir, 'art/p/q.png'), 'PNG');
    await writeFile(path.join(dir, 'x.yaml'), 'id: x\ntype: movie\nname: X\nposter: art/p/q.png\n');
    const before = await readTree(out);
    await expect(build({ contentDir: dir, outDir: out })).rejects.toThrow(
      `${path.join(out, 'assets/art/p')} is a file, where the build writes a folder`,
    );
    expect(await readTree(out)).toEqual(before);
  });

  it('are not written when the names in a folder changed while the build wrote', async () => {
    const changes: { name: string; during: (out: string) => void }[] = [
      // A folder the build writes into, and one it does not touch.
      { name: 'a foreign file added', during: (out) => writeFileSync(path.join(out, 'meta/movie/extra.json'), '{}') },
      { name: 'a file deleted', during: (out) => rmSync(path.join(out, 'stream/movie/x.json')) },
    ];
    for (const { name, during } of changes) {
      const { dir, out } = await built();
      // A genre too: the whole build, which lists the output folder, not an edit's.
      await writeFile(path.join(dir, 'y.yaml'), files['y.yaml'].replace('name: Y', 'name: Y2\ngenres: [Drama]'));
      let done = false;
      // Once files are written: after the output folder was listed.
      const onProgress = ({ stage, done: files }: { stage: string; done?: number }) => {
        if (stage !== 'write' || files === undefined || done) return;
        done = true;
        during(out);
      };
      expect((await build({ contentDir: dir, outDir: out, onProgress })).ok, name).toBe(true);
      expect(done, name).toBe(true);
      expect(await stamped(out), name).toBe(false);
      expect((await build({ contentDir: dir, outDir: out })).reused, name).toBeUndefined();
    }
  });

  it('doubt a folder replaced by an identical copy, and one no older than the state file: the listing finds them whole', async () => {
    const { dir, out } = await built();
    const clean = await readTree(out);
    await cp(path.join(out, 'meta'), path.join(out, 'meta.copy'), { recursive: true });
    await rm(path.join(out, 'meta'), { recursive: true });
    await rename(path.join(out, 'meta.copy'), path.join(out, 'meta'));
    expect(await stamped(out)).toBe(false);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
    expect(await readTree(out)).toEqual(clean);

    const other = await built();
    // The state file written at a time before the stamps: a change in the same tick as a stamp
    // would not show in the folder's times.
    await utimes(stateFileOf(other.out), new Date(0), new Date(0));
    expect(await stamped(other.out)).toBe(false);
    expect((await build({ contentDir: other.dir, outDir: other.out })).reused).toBe(true);
  });

  it('are not trusted when the state file was edited by hand', async () => {
    const { dir, out } = await built();
    const state = stateFileOf(out);
    const text = await readFile(state, 'utf8');
    // The same fields, written again without the head's layout: the whole file is read.
    await writeFile(state, JSON.stringify(JSON.parse(text), null, 1));
    expect(await readStateHead(out)).toBeUndefined();
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
    // One entry fewer in its columns, the head as it was: its size differs from the stamped one.
    const entry = text.lastIndexOf('"meta/movie/x.json",');
    await writeFile(state, text.slice(0, entry) + text.slice(entry + '"meta/movie/x.json",'.length));
    expect(await stamped(out)).toBe(false);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBeUndefined();
  });
});
