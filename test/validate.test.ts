// Each validation rule on real files: its code, message, file, line, column and field path.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Diagnostic } from '../src/diagnostics/index.js';
import { toRfc3339 } from '../src/validate/schema.js';
import { COMPILE_ITEM_SCHEMA_AT } from '../src/validate/index.js';
import { sourceLineOf } from '../src/load/index.js';
import { addonYaml, contentDir, movies } from './support/content.js';

const CATALOG = 'catalogs:\n  - { id: films, type: movie, name: Films }\n';

/** Builds (without writing) and returns the diagnostics with file paths relative to the folder. */
async function check(files: Record<string, string | Buffer>, baseUrl?: string): Promise<Diagnostic[]> {
  const dir = await contentDir(files);
  const result = await build({ contentDir: dir, baseUrl });
  return result.diagnostics.map((d) => ({ ...d, file: d.file && path.relative(dir, d.file) }));
}

function only(diagnostics: Diagnostic[], code: string): Diagnostic {
  const found = diagnostics.filter((d) => d.code === code);
  expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
  return found[0]!;
}

describe('YAML', () => {
  it('reports a syntax error at its position', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: x\nname: [unclosed\n' }), 'yaml-syntax');
    expect(d).toMatchObject({ file: 'a.yaml', line: 3, severity: 'error' });
  });

  it('puts a genre spelled two ways at the spelling read later, files in the order they are read (Z before a)', async () => {
    const addon = addonYaml('catalogs:\n  - { id: d, type: movie, name: D, genres: auto }\n');
    const files = {
      'addon.yaml': addon,
      'Z.yaml': 'id: "g:1"\ntype: movie\nname: E\ngenres: [Drama]\n',
      'a.yaml': 'id: "g:2"\ntype: movie\nname: F\ngenres: [drama]\n',
    };
    const d = only(await check(files), 'case-conflict');
    expect(d).toMatchObject({ file: 'a.yaml', line: 4, column: 10, path: 'genres[0]' });
    expect(d.related).toEqual([{ file: expect.stringMatching(/Z\.yaml$/), line: 4, column: 10, message: 'the first item with genre "Drama"' }]);
  });

  it('points at the [ or { that is not closed, past brackets and quotes closed on its line', async () => {
    const files = {
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': '- { id: a, type: movie, name: "A [x", genres: [Drama]\n- { id: b, type: movie, name: B }\n',
    };
    const d = only(await check(files), 'yaml-syntax');
    expect(d).toMatchObject({ file: 'a.yaml', line: 2, column: 1 });
    expect(d.related).toEqual([{ file: expect.stringMatching(/a\.yaml$/), line: 1, column: 3, message: 'the "{" that is not closed' }]);
    expect(d.hint).toBe(
      'close the "{" of line 1 with "}" on that line (or write its entries on lines of their own); a value that holds "{" needs quotes',
    );
  });

  it('reports a duplicate key at the second key', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\nname: B\n' }), 'duplicate-key');
    expect(d).toMatchObject({ file: 'a.yaml', line: 4, column: 1 });
  });

  it('refuses a document that is a single value', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'just text\n' }), 'not-an-item');
    expect(d).toMatchObject({ file: 'a.yaml', line: 1, column: 1 });
  });

  it('expands reasonable aliases and refuses an alias bomb quickly', async () => {
    const shared = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': '- { id: a, type: movie, name: A, genres: &g [Drama] }\n- { id: b, type: movie, name: B, genres: *g }\n',
    });
    expect(shared).toEqual([]);
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    // Expanded, this would be 9^12 strings; refused, it ends at once.
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'bomb.yaml': `${levels.join('\n')}\n` }), 'yaml-alias');
    expect(d).toMatchObject({ file: 'bomb.yaml', line: 1, column: 1 });
  });

  it('accepts empty files and empty documents', async () => {
    const result = await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': '', 'b.yaml': '---\n---\n' });
    expect(result).toEqual([]);
  });

  it('reports a missing addon.yaml', async () => {
    const d = only(await check({ 'a.yaml': 'id: a\ntype: movie\nname: A\n' }), 'missing-addon-yaml');
    expect(d.file).toBe('addon.yaml');
  });
});

describe('fields', () => {
  it('names an unknown field at its key, with a suggestion', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml(CATALOG),
        'films.yaml': '- id: a\n  type: movie\n  name: A\n  postr: https://example.org/a.jpg\n',
      }),
      'unknown-field',
    );
    expect(d).toMatchObject({ file: 'films.yaml', line: 4, column: 3, path: 'postr', message: 'unknown field "postr"' });
    expect(d.hint).toBe('did you mean "poster"?');
  });

  it('explains `title` on a stream', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml(CATALOG),
        'a.yaml': 'id: a\ntype: movie\nname: A\nstreams:\n  - url: https://example.org/a.mp4\n    title: HD\n',
      }),
      'unknown-field',
    );
    expect(d).toMatchObject({ line: 6, column: 5, path: 'streams[0].title' });
    expect(d.hint).toMatch(/description/);
  });

  it('names a missing field at the mapping that lacks it', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': '\nid: a\ntype: movie\n' }), 'missing-field');
    expect(d).toMatchObject({ file: 'a.yaml', line: 2, column: 1, path: 'name', message: expect.stringMatching(/^"name" is required: catalog "/) });
  });

  it('says what was expected and what was found', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\ngenres: Drama\n' }), 'invalid-value');
    expect(d).toMatchObject({ line: 4, column: 9, path: 'genres', message: 'expected a list, found "Drama"' });
  });

  it('hints at quotes for a number where text is expected, in an item and in addon.yaml', async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films, genres: [Drama, 1980] }\n'),
      'a.yaml': 'id: a\ntype: movie\nname: 1917\ngenres: [1980]\n',
      // Read as 1.1: what was written is not known, so not shown.
      'b.yaml': 'id: b\ntype: movie\nname: 1.10\n',
    });
    expect(diagnostics.map((d) => [d.file, d.path, d.message, d.hint])).toEqual([
      [
        'addon.yaml',
        'catalogs[0].genres[1]',
        'expected text, found 1980',
        'write it in quotes ("1980"): without them YAML reads it as the number 1980',
      ],
      ['a.yaml', 'name', 'expected text, found 1917', 'write it in quotes (name: "1917"): without them YAML reads it as the number 1917'],
      ['a.yaml', 'genres[0]', 'expected text, found 1980', 'write it in quotes ("1980"): without them YAML reads it as the number 1980'],
      ['b.yaml', 'name', 'expected text, found 1.1', 'write it in quotes, as you mean it (name: "…"): without them YAML reads it as the number 1.1'],
    ]);
  });

  it('refuses a date that does not exist', async () => {
    const d = only(
      await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\nreleased: 2023-02-30\n' }),
      'invalid-value',
    );
    expect(d).toMatchObject({ line: 4, column: 11, path: 'released', message: '"2023-02-30" is not a date that exists' });
  });

  it('turns each day into its UTC midnight, as Date counts days, and no other', () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (const year of [0, 99, 1900, 1968, 2000, 2023, 2024, 2100, 9999]) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          // Date rolls a day past the month's end into the next month: such a day does not exist.
          const exists = day >= 1 && date.getUTCDate() === day;
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          expect(toRfc3339(text), text).toBe(exists ? date.toISOString() : undefined);
        }
      }
    }
  });

  it('refuses negative and fractional episode numbers', async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'),
      's.yaml': 'id: s\ntype: series\nname: S\nvideos:\n  - { season: -1, episode: 1 }\n  - { season: 1, episode: 1.5 }\n',
    });
    expect(diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ['invalid-value', 5, 'videos[0].season'],
      ['invalid-value', 6, 'videos[1].episode'],
    ]);
  });

  it('checks infoHash, lang and stream sources', async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': [
        'id: a',
        'type: movie',
        'name: A',
        'streams:',
        '  - infoHash: abc123', // line 5
        '  - name: no source', // line 6
        '  - { url: "https://example.org/a.mp4", ytId: abcdefghijk }', // line 7
        'subtitles:',
        '  - { lang: english, url: "https://example.org/a.srt" }', // line 9
        '',
      ].join('\n'),
    });
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.path])).toEqual([
      ['invalid-value', 5, 15, 'streams[0].infoHash'],
      ['stream-source', 6, 5, 'streams[1]'],
      ['stream-source', 7, 5, 'streams[2]'],
      ['invalid-value', 9, 13, 'subtitles[0].lang'],
    ]);
    expect(diagnostics[0]!.message).toMatch(/40 hexadecimal digits/);
    expect(diagnostics[2]!.message).toMatch(/has 2: url, ytId/);
    expect(diagnostics[3]!.message).toMatch(/three-letter/);
  });

  it('refuses ids that cannot become file names', async () => {
    const long = 'x'.repeat(201);
    const diagnostics = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': `- { id: "a/b", type: movie, name: A }\n- { id: "..", type: movie, name: B }\n- { id: "c\\u0001", type: movie, name: C }\n- { id: ${long}, type: movie, name: D }\n`,
    });
    expect(diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ['bad-file-name', 1, 'id'],
      ['bad-file-name', 2, 'id'],
      ['bad-file-name', 3, 'id'],
      ['bad-file-name', 4, 'id'],
    ]);
    expect(diagnostics[0]!.message).toContain('contains "/"');
    expect(diagnostics[3]!.message).toContain('longer than 200 bytes');
  });
});

describe('addon.yaml', () => {
  it('refuses a version that is not semver', async () => {
    const d = only(await check({ 'addon.yaml': 'id: org.example.x\nversion: "1.0"\nname: X\n' }), 'invalid-value');
    expect(d).toMatchObject({ file: 'addon.yaml', line: 2, column: 10, path: 'version' });
    expect(d.message).toMatch(/semantic version/);
    // A numeric pre-release part with a leading zero, which semver forbids; one of letters may have one.
    for (const version of ['1.0.0-01', '1.0.0-rc.01', '1.0.0-x.010+b'])
      expect(only(await check({ 'addon.yaml': `id: org.example.x\nversion: ${version}\nname: X\n` }), 'invalid-value').path, version).toBe('version');
    for (const version of ['1.0.0-0', '1.0.0-rc.1+build.01', '1.0.0-0a'])
      expect(await check({ 'addon.yaml': `id: org.example.x\nversion: ${version}\nname: X\n` }), version).toEqual([]);
  });

  it('refuses genre options that are not strings', async () => {
    const d = only(
      await check({ 'addon.yaml': addonYaml('catalogs:\n  - id: films\n    type: movie\n    name: Films\n    genres: [Drama, 1984]\n') }),
      'invalid-value',
    );
    expect(d).toMatchObject({ file: 'addon.yaml', line: 9, column: 21, path: 'catalogs[0].genres[1]' });
    expect(d.message).toBe('expected text, found 1984');
  });

  it('reports every bad genre option of a catalog, not only the first', async () => {
    const diagnostics = await check({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C, genres: [1, true, 2] }\n') });
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.path, d.message])).toEqual([
      ['invalid-value', 6, 45, 'catalogs[0].genres[0]', 'expected text, found 1'],
      ['invalid-value', 6, 48, 'catalogs[0].genres[1]', 'expected text, found true'],
      ['invalid-value', 6, 54, 'catalogs[0].genres[2]', 'expected text, found 2'],
    ]);
  });

  it('refuses a genre listed again in other letter case, at the second spelling', async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml('catalogs:\n  - { id: d, type: movie, name: D, genres: [Drama, Drama, drama] }\n'),
      'a.yaml': '- { id: "g:x1", type: movie, name: E, genres: [Drama] }\n- { id: "g:x2", type: movie, name: F, genres: [drama] }\n',
    });
    expect(diagnostics.filter((d) => d.code === 'case-conflict')).toEqual([
      {
        code: 'case-conflict',
        severity: 'error',
        file: 'addon.yaml',
        line: 6,
        column: 59,
        path: 'catalogs[0].genres[2]',
        message:
          'genre "drama" of catalog "d" differs from its genre "Drama" only in letter case: each page of one (catalog/movie/d/genre=drama.json) and the same page of the other (catalog/movie/d/genre=Drama.json) would be one file',
        hint: 'list the genre once, in one spelling: file systems and hosts that ignore case or Unicode normalization would make the pages of both one file',
        related: [{ file: expect.stringMatching(/addon\.yaml$/), line: 6, column: 45, message: '"Drama", listed first' }],
      },
    ]);
  });

  it('refuses two catalogs with the same type and id', async () => {
    const d = only(
      await check({ 'addon.yaml': addonYaml('catalogs:\n  - { id: a, type: movie, name: A }\n  - { id: a, type: movie, name: B }\n') }),
      'duplicate-catalog',
    );
    expect(d).toMatchObject({ line: 7, path: 'catalogs[1].id' });
  });

  it('warns when the manifest is over 8 KB', async () => {
    const genres = Array.from({ length: 600 }, (_, i) => `genre-number-${i}`);
    const diagnostics = await check({
      'addon.yaml': addonYaml(`catalogs:\n  - { id: a, type: movie, name: A, genres: [${genres.join(', ')}] }\n`),
    });
    expect(only(diagnostics, 'manifest-too-large').severity).toBe('warning');
  });
});

describe('across items', () => {
  it('names both places of a duplicate item id', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml(CATALOG),
        'a.yaml': 'id: same\ntype: movie\nname: A\n',
        'b.yaml': '\n\n- id: same\n  type: movie\n  name: B\n',
      }),
      'duplicate-id',
    );
    expect(d).toMatchObject({ file: 'b.yaml', line: 3, column: 7 });
    // The other place is a location of its own, which editors and annotations can point at.
    expect(d.related).toHaveLength(1);
    expect(d.related![0]).toMatchObject({ line: 1, column: 5, message: 'the other item with id "same"' });
    expect(d.related![0]!.file!.endsWith(`${path.sep}a.yaml`)).toBe(true);
  });

  it('names a duplicate video id', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'),
        's.yaml': 'id: s\ntype: series\nname: S\nvideos:\n  - { season: 1, episode: 1 }\n  - { id: "s:1:1", title: Again }\n',
      }),
      'duplicate-video-id',
    );
    expect(d).toMatchObject({ line: 6, column: 5, path: 'videos[1]' });
    expect(d.message).toContain('"s:1:1"');
  });

  it('names a catalog that does not exist, with a suggestion', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\ncatalogs: [film]\n' }), 'unknown-catalog');
    expect(d).toMatchObject({ line: 4, column: 12, path: 'catalogs[0]', hint: 'did you mean "films"?' });
  });

  it('warns about items that no catalog lists', async () => {
    const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: series\nname: A\n' }), 'uncovered-type');
    expect(d).toMatchObject({ severity: 'warning', file: 'a.yaml', line: 1, column: 5 });
    expect(d.message).toContain('no catalog has type "series"');
  });

  it('refuses a defaultVideoId that names no video', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'),
        's.yaml': 'id: s\ntype: series\nname: S\nbehaviorHints:\n  defaultVideoId: "s:1:2"\nvideos:\n  - { season: 1, episode: 1 }\n',
      }),
      'unknown-default-video',
    );
    expect(d).toMatchObject({ line: 5, column: 19, path: 'behaviorHints.defaultVideoId', hint: 'did you mean "s:1:1"?' });
  });

  it("takes an item's own id as the defaultVideoId of an item without videos, and no other", async () => {
    const files = (id: string) => ({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': `id: "pd:a"\ntype: movie\nname: A\nbehaviorHints: { defaultVideoId: "${id}" }\n`,
    });
    expect(await check(files('pd:a'))).toEqual([]);
    const d = only(await check(files('pd:b')), 'unknown-default-video');
    expect(d).toMatchObject({ line: 4, column: 34, path: 'behaviorHints.defaultVideoId', hint: 'did you mean "pd:a"?' });
    const far = only(await check(files('tt0013442')), 'unknown-default-video');
    expect(far.hint).toBe("an item without videos plays its own streams: name the item's own id, or remove defaultVideoId");
  });
});

describe('local files', () => {
  it('publishes a local file under the base URL', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(CATALOG),
      'films/a.yaml': 'id: a\ntype: movie\nname: A\nposter: ../images/a poster.jpg\n',
      'images/a poster.jpg': Buffer.from([0xff, 0xd8, 0xff]),
    });
    const result = await build({ contentDir: dir, baseUrl: 'https://user.github.io/repo' });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.items[0]!.poster).toBe('https://user.github.io/repo/assets/images/a%20poster.jpg');
    expect(result.files!.find((f) => f.path === 'assets/images/a poster.jpg')?.copyFrom).toBe(path.join(dir, 'images/a poster.jpg'));
  });

  it('needs a base URL for local files, and says how to give one', async () => {
    const d = only(
      await check({
        'addon.yaml': addonYaml(CATALOG),
        'a.yaml': 'id: a\ntype: movie\nname: A\nposter: a.jpg\n',
        'a.jpg': 'x',
      }),
      'base-url-required',
    );
    expect(d).toMatchObject({ line: 4, column: 9, path: 'poster' });
    expect(d.hint).toMatch(/--base-url/);
  });

  it('reports a mistake in addon.yaml once, not again for every local file', async () => {
    const diagnostics = await check({
      'addon.yaml': 'id: org.example.x\nversion: one\nname: X\nbaseUrl: https://example.org/x/\n',
      'a.yaml': 'id: a\ntype: movie\nname: A\nposter: a.jpg\n',
      'a.jpg': 'x',
    });
    expect(diagnostics.map((d) => [d.code, d.file, d.path])).toEqual([['invalid-value', 'addon.yaml', 'version']]);
  });

  it('refuses missing files and paths outside the content folder', async () => {
    const diagnostics = await check(
      {
        'addon.yaml': addonYaml(CATALOG),
        'a.yaml': 'id: a\ntype: movie\nname: A\nposter: missing.jpg\nbackground: ../../etc/passwd\nlogo: /etc/passwd\n',
      },
      'https://example.org/',
    );
    expect(diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ['missing-asset', 4, 'poster'],
      ['asset-outside-content', 5, 'background'],
      ['asset-outside-content', 6, 'logo'],
    ]);
  });
});

describe('at most 100 errors and 100 warnings per file', () => {
  /** `count` movies with ids `PREFIX0`…, each line made by `line(i)` after id, type and name. */
  const items = (count: number, line: (i: number) => string = () => '', prefix = 't:') =>
    Array.from({ length: count }, (_, i) => `- id: "${prefix}${i}"\n  type: movie\n  name: M\n${line(i)}`).join('');
  const typo = () => '  relased: 2001\n'; // an unknown field, on the 4th line of each item
  const inFile = (diagnostics: Diagnostic[], file: string) => diagnostics.filter((d) => d.file === file);
  const summary = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === 'too-many-problems');

  it('shows the first 100 of 5,000 problems where they are, and one more that counts the rest', async () => {
    const diagnostics = inFile(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': items(5_000, typo) }), 'a.yaml');
    expect(diagnostics).toHaveLength(101);
    const shown = diagnostics.filter((d) => d.code === 'unknown-field');
    expect(shown.map((d) => `${d.line}:${d.column}`)).toEqual(Array.from({ length: 100 }, (_, i) => `${4 * i + 4}:3`));
    expect(summary(diagnostics)).toEqual([
      {
        code: 'too-many-problems',
        severity: 'error',
        file: 'a.yaml',
        line: 404, // the first left out: the 101st item's
        column: 3,
        message: '4,900 more errors in this file are not shown',
        hint: 'fix the ones shown and build again; so many problems in one file are usually one mistake, repeated',
      },
    ]);
  });

  it('limits each file on its own', async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': items(300, typo, 'a:'),
      'b.yaml': '--- just text\n'.repeat(150), // documents that are not items: found as the file is parsed
      'c.yaml': items(1, typo, 'c:'),
    });
    expect(inFile(diagnostics, 'a.yaml')).toHaveLength(101);
    expect(summary(inFile(diagnostics, 'a.yaml'))[0]!.message).toBe('200 more errors in this file are not shown');
    expect(inFile(diagnostics, 'b.yaml')).toHaveLength(101);
    expect(summary(inFile(diagnostics, 'b.yaml'))[0]!.message).toBe('50 more errors in this file are not shown');
    expect(inFile(diagnostics, 'c.yaml').map((d) => d.code)).toEqual(['unknown-field']);
  });

  it('adds nothing to a file of exactly 100 problems, and counts the 101st', async () => {
    const hundred = inFile(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': items(100, typo) }), 'a.yaml');
    expect(hundred).toHaveLength(100);
    expect(summary(hundred)).toEqual([]);
    const more = inFile(await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': items(101, typo) }), 'a.yaml');
    expect(summary(more).map((d) => [d.message, d.line])).toEqual([['1 more error in this file is not shown', 404]]);
  });

  it('limits warnings apart from errors, so that warnings never hide an error', async () => {
    const credentials = () =>
      '  streams: [{ url: "https://example.org/a.mp4", behaviorHints: { proxyHeaders: { request: { Authorization: x } } } }]\n';
    // 120 warnings, then `errors` errors.
    const warningsThen = async (errors: number) => {
      const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': items(120, credentials) + items(errors, typo, 'e:') });
      const result = await build({ contentDir: dir, allowCredentialsInOutput: true });
      return result.diagnostics;
    };
    const few = await warningsThen(3);
    expect(few.filter((d) => d.code === 'credentials-in-output')).toHaveLength(100);
    expect(few.filter((d) => d.code === 'unknown-field')).toHaveLength(3);
    expect(summary(few).map((d) => [d.severity, d.message])).toEqual([['warning', '20 more warnings in this file are not shown']]);
    const many = await warningsThen(130);
    expect(many.filter((d) => d.code === 'credentials-in-output')).toHaveLength(100);
    expect(many.filter((d) => d.code === 'unknown-field')).toHaveLength(100);
    expect(summary(many).map((d) => [d.severity, d.message])).toEqual([
      ['error', '50 more problems in this file are not shown: 30 errors and 20 warnings'],
    ]);
  });

  it('limits ids repeated from another file in the file that repeats them', async () => {
    const diagnostics = await check({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': items(300), 'b.yaml': items(300) });
    expect(inFile(diagnostics, 'a.yaml')).toEqual([]);
    const repeated = inFile(diagnostics, 'b.yaml');
    expect(repeated.filter((d) => d.code === 'duplicate-id')).toHaveLength(100);
    // At the id of the 101st item.
    expect(summary(repeated).map((d) => [d.message, d.line, d.column])).toEqual([['200 more errors in this file are not shown', 301, 7]]);
  });

  it("limits ids that differ from another file's only in case, found when the files are planned", async () => {
    const diagnostics = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': items(150, undefined, 't:a'),
      'b.yaml': items(150, undefined, 't:A'),
    });
    const conflicts = inFile(diagnostics, 'b.yaml');
    expect(conflicts.filter((d) => d.code === 'case-conflict')).toHaveLength(100);
    expect(summary(conflicts).map((d) => d.message)).toEqual(['50 more errors in this file are not shown']);
  });
});

describe('many items', () => {
  // From the COMPILE_ITEM_SCHEMA_AT-th item on, items are checked by the compiled schema: after as
  // many valid ones, the same items must give the same problems, or the same files.
  const filler = { 'a/filler.yaml': movies(COMPILE_ITEM_SCHEMA_AT) };
  const withFiller = (files: Record<string, string | Buffer>, many: boolean) => (many ? { ...filler, ...files } : files);

  it('reports the same problems in the same places once the item schema is compiled', async () => {
    const problems = [
      'id: b:1\ntype: movie\nname: A\nreleased: 2023-02-30\n',
      'id: b:2\ntype: movie\nname: B\nstreams: [{ url: "https://example.org/b.mp4", ytId: FC6jFoYm3xs }]\n',
      'id: b:3\ntype: movie\nname: C\nrelased: 1922\n',
      'id: b:4\ntype: movie\nname: D\nposter: missing.jpg\nbackground: ../../x.jpg\n',
      'id: b:5\ntype: movie\nstreams: [{ infoHash: ABC, fileIdx: 65536 }, { url: relative.mp4, announce: [x] }]\n',
      'id: b:6\ntype: series\nname: F\nvideos:\n  - { season: 1, episode: 1.5, released: yesterday }\n  - { title: T, streams: [{}] }\n',
      'id: b:7\ntype: movie\nname: G\ngenres: [a/b]\nlinks: [{ name: L, category: C, url: relative }]\nreleaseInfo: [1]\n',
      'id: "CON"\ntype: movie\nname: H\nsubtitles: [{ lang: EN, url: "https://example.org/h.srt" }]\n',
    ].join('---\n');
    const diagnosticsOf = async (many: boolean) => {
      const dir = await contentDir(withFiller({ 'addon.yaml': addonYaml(CATALOG), 'z/problems.yaml': problems }, many));
      const result = await build({ contentDir: dir, baseUrl: 'https://example.org/' });
      return result.diagnostics
        .filter((d) => d.file === path.join(dir, 'z', 'problems.yaml'))
        .map((d) => ({ ...d, file: undefined, message: d.message.replaceAll(dir, '<content>') }));
    };
    const few = await diagnosticsOf(false);
    expect(few.filter((d) => d.severity === 'error').length).toBeGreaterThan(12);
    expect(await diagnosticsOf(true)).toEqual(few);
  });

  it('writes the same files once the item schema is compiled', async () => {
    const items = [
      'id: c:1\ntype: movie\nname: A\nposter: images/a.jpg\nreleased: 1922-03-04\nreleaseInfo: 1922\nruntime: 94\n' +
        'links: [{ name: Wiki, category: Links, url: "https://example.org/wiki" }]\n' +
        'streams:\n  - { infoHash: D73EB438A907D090402C802D7C5700893A34BD83, fileIdx: 2, announce: ["tracker:udp://t.example.org:80"] }\n' +
        '  - { rarUrls: ["https://example.org/a.rar", ["https://example.org/b.rar", 10]], fileMustInclude: ["\\\\.mkv$"] }\n' +
        '  - { url: "https://example.org/a.mp4", behaviorHints: { bingeGroup: g, countryWhitelist: [usa], proxyHeaders: { request: { Referer: x } } } }\n' +
        'subtitles: [{ lang: eng, url: subs/a.srt }]\ntrailerStreams: [{ ytId: FC6jFoYm3xs }]\n',
      'id: c:2\ntype: series\nname: B\nreleased: 1968-10-01 20:00\ngenres: [Drama, Drama]\nbehaviorHints: { defaultVideoId: special }\nvideos:\n' +
        '  - { season: 1, episode: 1, released: 1968-10-01T20:00:00+02:00, streams: [{ externalUrl: "https://example.org/w", tizenUrl: "https://example.org/t" }] }\n' +
        '  - { id: special, title: Extra, season: 0, subtitles: [{ id: s, lang: fra, url: "https://example.org/s.srt" }], streams: [{ playerFrameUrl: "https://example.org/p" }] }\n',
    ].join('---\n');
    const filesOf = async (many: boolean) => {
      const dir = await contentDir(
        withFiller({ 'addon.yaml': addonYaml(CATALOG), 'z/items.yaml': items, 'z/images/a.jpg': 'x', 'z/subs/a.srt': 'x' }, many),
      );
      const result = await build({ contentDir: dir, baseUrl: 'https://example.org/addon/' });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const ours = result.files!.filter((f) => ['meta', 'stream', 'subtitles'].includes(f.resource) && !/\/t:\d+\.json$/.test(f.path));
      return new Map(ours.map((f) => [f.path, typeof f.body === 'function' ? f.body() : f.body]));
    };
    const few = await filesOf(false);
    expect([...few.keys()].sort()).toEqual([
      'meta/movie/c:1.json',
      'meta/series/c:2.json',
      'stream/movie/c:1.json',
      'stream/series/c:2:1:1.json',
      'stream/series/special.json',
      'subtitles/movie/c:1.json',
      'subtitles/series/c:2:1:1.json',
      'subtitles/series/special.json',
    ]);
    expect(await filesOf(true)).toEqual(few);
  });
});

describe('the base URL', () => {
  it('warns when it is plain http:// on another machine, at baseUrl in addon.yaml or for --base-url', async () => {
    const fromYaml = only(
      await check({ 'addon.yaml': addonYaml(`baseUrl: http://films.example.org/\n${CATALOG}`), 'movies.yaml': movies(1) }),
      'insecure-base-url',
    );
    expect(fromYaml).toMatchObject({ severity: 'warning', file: 'addon.yaml', line: 5, column: 10, path: 'baseUrl' });
    expect(fromYaml.message).toContain('HTTPS');
    for (const url of ['http://192.168.1.20:8080/addon/', 'http://127.example.org/', 'http://localhost.example.org/']) {
      const flag = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'movies.yaml': movies(1) }, url), 'insecure-base-url');
      expect(flag.file, url).toBeUndefined();
      expect(flag.hint, url).toContain('--base-url');
    }
  });

  it('is fine over https, and over http from 127.0.0.1, which the client allows', async () => {
    for (const url of ['https://films.example.org/', 'http://127.0.0.1:7000/', 'https://localhost:8443/']) {
      const diagnostics = await check({ 'addon.yaml': addonYaml(CATALOG), 'movies.yaml': movies(1) }, url);
      expect(diagnostics, url).toEqual([]);
    }
  });

  it('refuses a baseUrl with a user name or password, which every link would publish', async () => {
    const d = only(
      await check({ 'addon.yaml': addonYaml(`baseUrl: https://user:pw@cdn.example.org/\n${CATALOG}`), 'movies.yaml': movies(1) }),
      'invalid-value',
    );
    expect(d).toMatchObject({ severity: 'error', file: 'addon.yaml', line: 5, column: 10, path: 'baseUrl' });
    expect(d.message).toMatch(/^expected a URL without a user name or password/);
  });

  it("refuses the manifest's URL as baseUrl, at its place in addon.yaml", async () => {
    const d = only(
      await check({ 'addon.yaml': addonYaml(`baseUrl: https://user.github.io/repo/manifest.json\n${CATALOG}`), 'movies.yaml': movies(1) }),
      'invalid-value',
    );
    expect(d).toMatchObject({ severity: 'error', file: 'addon.yaml', line: 5, column: 10, path: 'baseUrl' });
    expect(d.message).toBe("expected the folder the files are published in, not the manifest's URL: leave out manifest.json");
  });

  it('warns for this machine by another name over http, and says to write 127.0.0.1', async () => {
    for (const [url, name] of [
      ['http://localhost:7000/repo/', 'localhost'],
      ['http://[::1]:7000/', '[::1]'],
      ['http://127.1.2.3/', '127.1.2.3'],
    ]) {
      const d = only(await check({ 'addon.yaml': addonYaml(CATALOG), 'movies.yaml': movies(1) }, url), 'insecure-base-url');
      expect(d.hint, url).toBe(`on this machine, write 127.0.0.1 instead of ${name} in --base-url: the apps take plain HTTP from no other name`);
    }
  });
});

describe('texts once checked', () => {
  it('reads a file again for a line shown after validate, and shows nothing of a file changed or gone since', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\nname: B\n' });
    const result = await build({ contentDir: dir });
    const d = only(result.diagnostics, 'duplicate-key');
    const source = result.sources.find((s) => s.file === d.file)!;
    // Let go once checked: read again when asked for.
    expect(Object.getOwnPropertyDescriptor(source, 'text')?.get).toBeDefined();
    expect(sourceLineOf(result.sources)(d.file!, d.line!)).toBe('name: B');
    // Changed since, with the same length: its lines are not those the diagnostic points at.
    const changed = await build({ contentDir: dir });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(d.file!, 'id: a\ntype: movie\nname: A\nname: C\n');
    expect(sourceLineOf(changed.sources)(d.file!, d.line!)).toBeFalsy();
    const again = await build({ contentDir: dir });
    await rm(d.file!);
    expect(sourceLineOf(again.sources)(d.file!, d.line!)).toBeFalsy();
  });
});
