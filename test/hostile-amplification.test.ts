// Hostile content that asks for far more output than it is (genres multiply catalog pages, streams
// repeat subtitles), or for work quadratic in one item's lists; paths that differ only in Unicode
// normalization; credential headers written with spaces. Each on real content folders and builds.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import type { Diagnostic } from '../src/diagnostics/index.js';
import { addonYaml, contentDir, movies, readTree, tempDir } from './support/content.js';

const BASE = 'baseUrl: https://user.github.io/films/\n';
const AUTO = 'catalogs:\n  - { id: all, type: movie, name: All, genres: auto }\n';

function codes(result: BuildResult, code: string): Diagnostic[] {
  return result.diagnostics.filter((d) => d.code === code);
}

/** `count` distinct genres, short ones: `g0, g1, …, gz, g10, …`. */
const genreList = (count: number) => Array.from({ length: count }, (_, i) => `g${i.toString(36)}`).join(', ');

describe('output amplification', () => {
  it('refuses an item whose genres multiply the pages that list it, located at its genres, and writes nothing', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(BASE + AUTO),
      'a.yaml': movies(3, () => ['Drama']),
    });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out, env: {} })).ok).toBe(true);
    const before = await readTree(out);

    // 4,000 genres in 40 KB: each genre's page lists the item, and each listing repeats every genre
    // with its link, so about 4,000 listings of half a megabyte.
    await writeFile(path.join(dir, 'b.yaml'), `id: "x:1"\ntype: movie\nname: Many\ngenres: [${genreList(4000)}]\n`);
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.ok).toBe(false);
    const [error] = codes(result, 'output-too-large');
    expect(error).toMatchObject({ severity: 'error', file: path.join(dir, 'b.yaml'), line: 4, column: 9, path: 'genres' });
    expect(error!.message).toMatch(/^the output would be at least \d+(\.\d)? GiB in 12,\d{3} files, from \d+ KiB of content: over the 64 MiB/);
    expect(error!.message).toContain('this item is listed on 4,001 catalog pages');
    expect(error!.hint).toContain('fewer genres');
    // Nothing written, nothing removed: the output is the last good build's.
    expect(await readTree(out)).toEqual(before);
  });

  it('refuses a catalog that offers so many genres that their pages outnumber the content, located in addon.yaml', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(`catalogs:\n  - id: all\n    type: movie\n    name: All\n    genres: [${genreList(35_000)}]\n`),
      'a.yaml': movies(2),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.ok).toBe(false);
    const [error] = codes(result, 'output-too-large');
    expect(error).toMatchObject({ file: path.join(dir, 'addon.yaml'), line: 9, column: 13, path: 'catalogs[0].genres' });
    expect(error!.message).toContain('in 105,007 files');
    expect(error!.message).toContain('over the 100,000 files a build may write for it');
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses streams that each repeat thousands of subtitles, located at the item', async () => {
    // 3,000 streams that each repeat 3,000 subtitles: half a gigabyte in one file, from 300 KB.
    const streams = Array.from({ length: 3000 }, (_, i) => `  - { url: "https://example.org/${i}.mp4" }`).join('\n');
    const subtitles = Array.from({ length: 3000 }, (_, i) => `  - { id: s${i}, lang: eng, url: "https://example.org/${i}.srt" }`).join('\n');
    const dir = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': `id: "x:1"\ntype: movie\nname: Subtitled\nstreams:\n${streams}\nsubtitles:\n${subtitles}\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    const [error] = codes(result, 'output-too-large');
    // A file this large is located at its item's start, without parsing it for positions.
    expect(error).toMatchObject({ file: path.join(dir, 'a.yaml'), line: 1, path: 'id' });
    expect(error!.message).toContain("this item's own files (meta, streams, subtitles) take at least");
    expect(await readdir(out)).toEqual([]);
  });

  it('builds an addon of many catalogs with genre filters and items of several genres', async () => {
    const pool = ['Action', 'Comedy', 'Drama', 'Horror', 'Western', 'Romance', 'Fantasy', 'Thriller'];
    const catalogs = Array.from({ length: 5 }, (_, i) => `  - { id: c${i}, type: movie, name: C${i}, genres: auto }`).join('\n');
    const dir = await contentDir({
      'addon.yaml': addonYaml(`${BASE}catalogs:\n${catalogs}\n`),
      'a.yaml': movies(300, (i) => [0, 1, 2, 3, 4].map((k) => pool[(i + k * 3) % pool.length]!)),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.write?.bytes).toBeGreaterThan(10 * 1024 * 1024);
  });
});

describe('work linear in one item', () => {
  it('checks and plans an item of 100,000 genres under `genres: auto`, and refuses its output', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(BASE + AUTO),
      'a.yaml': `id: "x:1"\ntype: movie\nname: Many\ngenres: [${genreList(100_000)}]\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['output-too-large']);
    expect(await readdir(out)).toEqual([]);
  });

  it('numbers thousands of subtitles of one language without ids in order', async () => {
    const subtitles = Array.from({ length: 20_000 }, (_, i) => `  - { lang: eng, url: "https://example.org/${i}.srt" }`).join('\n');
    const dir = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': `id: "x:1"\ntype: movie\nname: Subtitled\nstreams: []\nsubtitles:\n  - { id: "x:1:eng:3", lang: eng, url: "https://example.org/own.srt" }\n${subtitles}\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const { subtitles: written } = JSON.parse(await readFile(path.join(out, 'subtitles/movie/x:1.json'), 'utf8'));
    const ids = written.map((s: { id: string }) => s.id);
    expect(ids.slice(0, 5)).toEqual(['x:1:eng:3', 'x:1:eng', 'x:1:eng:2', 'x:1:eng:4', 'x:1:eng:5']);
    expect(new Set(ids).size).toBe(20_001);
    expect(ids[20_000]).toBe('x:1:eng:20001');
  });
});

describe('paths that differ only in Unicode normalization', () => {
  const composed = 'pd:caf\u00e9';
  const decomposed = 'pd:cafe\u0301';

  it('are a case-conflict that says so, with the character written both ways', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': `- { id: "${composed}", type: movie, name: Composed }\n- { id: "${decomposed}", type: movie, name: Decomposed }\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    expect(result.ok).toBe(false);
    const conflicts = codes(result, 'case-conflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ file: path.join(dir, 'a.yaml'), line: 2, column: 9 });
    expect(conflicts[0]!.message).toBe(
      `meta/movie/${decomposed}.json (by ${path.join(dir, 'a.yaml')}:2:9) and meta/movie/${composed}.json (by another item) ` +
        'differ only in Unicode normalization ("é" written as one character in one and as "e" plus a combining mark in the other)',
    );
    expect(await readdir(out)).toEqual([]);
  });

  it('name letter case too when both differ, and letter case alone as before', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': `- { id: "pd:CAF\u00c9", type: movie, name: A }\n- { id: "${decomposed}", type: movie, name: B }\n- { id: "pd:Cafe\u0301", type: movie, name: C }\n`,
    });
    const result = await build({ contentDir: dir, env: {} });
    const messages = codes(result, 'case-conflict').map((d) => d.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /differ only in letter case and Unicode normalization \("É" written as one character in one and as "E" plus a combining mark/,
    );
    expect(messages[1]).toMatch(/differ only in letter case and Unicode normalization/);
    const plain = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': `- { id: "${decomposed}", type: movie, name: A }\n- { id: "pd:CAFE\u0301", type: movie, name: B }\n`,
    });
    expect(codes(await build({ contentDir: plain, env: {} }), 'case-conflict').map((d) => d.message.replace(/.* differ/, 'differ'))).toEqual([
      'differ only in letter case',
    ]);
  });

  it('are found among genre pages too', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': movies(2, (i) => [i === 0 ? 'Caf\u00e9' : 'Cafe\u0301']),
    });
    const result = await build({ contentDir: dir, env: {} });
    // Once for the two spellings, not for each page they both have, at the item of the later one.
    const conflicts = codes(result, 'case-conflict');
    expect(conflicts.map((d) => [d.file, d.line, d.path])).toEqual([[path.join(dir, 'a.yaml'), 9, 'genres[0]']]);
    expect(conflicts[0]!.message).toMatch(
      /^genre "Cafe\u0301" of catalog "all" differs from its genre "Caf\u00e9" only in Unicode normalization \("é"/,
    );
  });
});

describe('credential headers', () => {
  for (const header of ['Authorization ', ' Cookie', 'X-Api-Key\t']) {
    it(`are found with spaces around the name: ${JSON.stringify(header)}`, async () => {
      const dir = await contentDir({
        'addon.yaml': addonYaml(AUTO),
        'a.yaml': `id: "x:1"\ntype: movie\nname: A\nstreams:\n  - url: https://example.org/a.mp4\n    behaviorHints: { notWebReady: true, proxyHeaders: { request: { ${JSON.stringify(header)}: secret-value } } }\n`,
      });
      const out = await tempDir();
      const result = await build({ contentDir: dir, outDir: out, env: {} });
      expect(result.ok).toBe(false);
      expect(codes(result, 'credentials-in-output')).toEqual([
        expect.objectContaining({ severity: 'error', line: 6, path: `streams[0].behaviorHints.proxyHeaders.request.${header}` }),
      ]);
      expect(await readdir(out)).toEqual([]);
    });
  }
});

describe('catalogs that list every item, by the thousand', () => {
  it('are refused from the count of what they would list, before any catalog lists an item', async () => {
    // 3,000 catalogs of every film times 3,000 films: 236 KB of content, nine million listings
    // that took 470 MB to make before the output could be measured.
    const catalogs = Array.from({ length: 3000 }, (_, i) => `  - { id: c${i}, type: movie, name: C }`).join('\n');
    const dir = await contentDir({ 'addon.yaml': addonYaml(`catalogs:\n${catalogs}\n`), 'a.yaml': movies(3000) });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, env: {} });
    const [error] = codes(result, 'output-too-large');
    expect(error).toMatchObject({ file: path.join(dir, 'addon.yaml'), path: 'catalogs[0].id', severity: 'error' });
    expect(error!.message).toContain('the 3,000 catalogs would list items 9,000,000 times');
    expect(error!.hint).toContain('items: listed');
    expect(await readdir(out)).toEqual([]);
  });
});

describe('"did you mean" among thousands of long catalog ids', () => {
  it('stays within its budget of work: a hundred unknown names are reported at once', async () => {
    const long = (i: number) => `${'c'.repeat(190)}${String(i).padStart(10, '0')}`;
    const catalogs = Array.from({ length: 3000 }, (_, i) => `  - { id: "${long(i)}", type: movie, name: C, items: listed }`).join('\n');
    const names = Array.from({ length: 100 }, (_, i) => `"${long(i).replace(/^c/, 'x')}"`).join(', ');
    const dir = await contentDir({
      'addon.yaml': addonYaml(`catalogs:\n${catalogs}\n`),
      'a.yaml': `id: a\ntype: movie\nname: A\ncatalogs: [${names}]\n`,
    });
    const result = await build({ contentDir: dir, env: {} });
    expect(codes(result, 'unknown-catalog')).toHaveLength(100);
  });
});

describe('idPrefixes by the thousand', () => {
  it('are checked against each id only up to its length', async () => {
    const prefixes = Array.from({ length: 3000 }, (_, i) => `"${'p'.repeat(i + 1)}:"`).join(', ');
    const dir = await contentDir({ 'addon.yaml': addonYaml(`${AUTO}idPrefixes: [${prefixes}]\n`), 'a.yaml': movies(20_000) });
    const result = await build({ contentDir: dir, env: {} });
    const errors = result.diagnostics.filter((d) => d.code === 'invalid-value');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.message).toMatch(/starts with none of the idPrefixes in addon\.yaml \("?p:"?, "?pp:/);
    expect(errors[0]!.message).toContain(', …)');
  });
});
