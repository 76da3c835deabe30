// Scale and incremental builds: the small benchmark's content builds into a tree the client
// accepts whole; incremental builds after random edits equal clean builds file by file; a build
// killed at random moments never leaves a broken JSON file and the next build repairs everything.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateContent, SIZES } from '../bench/generate.js';
import { build, keptBetweenBuilds } from '../src/build/index.js';
import { stateFileOf } from '../src/write/index.js';
import { readTree, tempDir } from './support/content.js';
import { checkTree } from './support/walk.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));

/** A seeded PRNG, so that a failure can be replayed with the same edits. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('the small benchmark content', () => {
  it('builds a tree whose every file the client accepts, with every catalog paged to its end', async () => {
    const content = await tempDir();
    await generateContent(content, SIZES.small);
    const out = await tempDir();
    const result = await build({ contentDir: content, outDir: out, hosts: [] });
    expect(result.ok).toBe(true);
    expect(result.counts).toMatchObject({ items: 2050, videos: 1000, streams: 6000, subtitles: 3000 });
    const tree = await readTree(out);
    checkTree(tree);
    // The bookkeeping, written a few thousand entries at a time, is what JSON.stringify would
    // write, and lists every file of the output.
    const text = await readFile(stateFileOf(out), 'utf8');
    const state = JSON.parse(text) as { paths: string[] };
    expect(JSON.stringify(state)).toBe(text);
    expect(state.paths.length).toBeGreaterThan(3 * 2048);
    expect([...state.paths].sort()).toEqual([...tree.keys()].sort());
  }, 120_000);
});

describe('incremental builds', () => {
  // What each file became kept in memory, as serve --watch builds; beside the output folder, as
  // the CLI's builds do; or not at all (no reuse: every file is parsed).
  it.each(['kept beside the output folder', 'kept in memory', 'nothing kept'])(
    'equal a clean build after each of a series of random edits, with no stale file left (%s)',
    async (keeping) => {
      const memory = keeping === 'kept in memory' ? keptBetweenBuilds() : undefined;
      const reuse = keeping !== 'nothing kept';
      const content = await tempDir();
      await generateContent(content, { movies: 300, series: 4, episodes: 6, itemsPerFile: 50 });
      const out = await tempDir();
      expect((await build({ contentDir: content, outDir: out, kept: memory })).ok).toBe(true);
      const next = random(7);
      const files = async () => (await readdir(path.join(content, 'movies'))).sort().map((f) => path.join(content, 'movies', f));

      const edits: [string, (text: string) => string][] = [
        ['rename', (t) => t.replace(/name: "([^"]*)"/, `name: "Renamed ${Math.floor(next() * 1e6)}"`)],
        ['remove', (t) => t.replace(/\n- id: [\s\S]*?(?=\n- id: |$)/, '')],
        ['add', (t) => `${t}- { id: "bm:new${Math.floor(next() * 1e9)}", type: movie, name: "Added", genres: [Western] }\n`],
        ['move to picks', (t) => t.replace(/(\n- id: "[^"]*"\n  type: movie\n)/, '$1  catalogs: [picks]\n')],
        ['change a stream', (t) => t.replace(/cdn\.example\.org\/m\/(\d+)\.mp4/, `cdn.example.org/m/$1-v${Math.floor(next() * 100)}.mp4`)],
        ['change a genre', (t) => t.replace(/genres: \[[^\]]*\]/, 'genres: [Horror]')],
        ['add a genre no catalog had', (t) => t.replace(/genres: \[/, `genres: [Noir ${Math.floor(next() * 3)}, `)],
      ];
      // Settings change what every item's files hold: these rebuilds must not trust a single fingerprint.
      const settingsEdits: [string, (text: string) => string][] = [
        ['change the cache hints', (t) => t.replace(/maxAge: \d+/, `maxAge: ${60 + Math.floor(next() * 1e4)}`)],
        ['make a catalog offer fixed genres', (t) => t.replace(/(id: newest, .*)genres: auto/, '$1genres: [Noir 1, Drama]')],
      ];
      for (let step = 0; step < 14; step++) {
        const settings = step % 5 === 4;
        const [name, edit] = settings ? settingsEdits[((step - 4) / 5) % settingsEdits.length]! : edits[Math.floor(next() * edits.length)]!;
        const list = await files();
        const file = settings ? path.join(content, 'addon.yaml') : list[Math.floor(next() * list.length)]!;
        await writeFile(file, edit(await readFile(file, 'utf8')));

        const incremental = await build({ contentDir: content, outDir: out, kept: memory, reuse });
        expect(incremental.ok, `${step} ${name}`).toBe(true);
        // New cache hints are in every file: none may be kept on the strength of its fingerprint.
        if (name === 'change the cache hints') expect(incremental.write!.written, name).toBeGreaterThan(300 * 3);
        const clean = await tempDir();
        await build({ contentDir: content, outDir: clean });
        const [a, b] = [await readTree(out), await readTree(clean)];
        expect([...a.keys()].sort(), `${step} ${name}: files`).toEqual([...b.keys()].sort());
        for (const [file, bytes] of b) expect(a.get(file)!.equals(bytes), `${step} ${name}: ${file}`).toBe(true);
      }
    },
    120_000,
  );
});

describe('an interrupted build', () => {
  it('never leaves a truncated JSON file, and the next build repairs everything', async () => {
    const content = await tempDir();
    const out = await tempDir();
    await generateContent(content, { movies: 1500, series: 10, episodes: 10 });
    const next = random(11);
    const movies = path.join(content, 'movies');

    let interrupted = 0;
    for (let kill = 0; kill < 20; kill++) {
      // Every other round renames every movie, so that each build has many files to rewrite.
      for (const file of await readdir(movies)) {
        const text = await readFile(path.join(movies, file), 'utf8');
        await writeFile(path.join(movies, file), text.replace(/name: "(Round \d+ )?/g, `name: "Round ${kill} `));
      }
      const child = spawn(process.execPath, [BIN, 'build', content, '--out', out, '--quiet'], { stdio: 'ignore' });
      const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      await new Promise((resolve) => setTimeout(resolve, 100 + next() * 900));
      child.kill('SIGKILL');
      if ((await closed) === 'SIGKILL') interrupted++;

      const tree = await readTree(out);
      for (const [file, bytes] of tree) {
        if (file.endsWith('.json')) expect(() => JSON.parse(bytes.toString()), `round ${kill}: ${file}`).not.toThrow();
      }
    }

    // Most kills must land inside a build (not after it) for the test to mean anything.
    expect(interrupted).toBeGreaterThanOrEqual(10);

    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const clean = await tempDir();
    await build({ contentDir: content, outDir: clean });
    const [a, b] = [await readTree(out), await readTree(clean)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [file, bytes] of b) expect(a.get(file)!.equals(bytes), file).toBe(true);
    // Nothing is left of the folders made beside the output folder.
    expect(existsSync(path.join(path.dirname(out), `.${path.basename(out)}.addon-gen-staging`))).toBe(false);
  }, 180_000);
});
