// Mistakes people make when they write content by hand, each reported where it is written, with
// what to do: the ten of docs/diagnostics.md, "Common mistakes", and a few more. Each asserts the
// exact code, severity, place and words; none of them may pass silently.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { mapDiagnosticFiles, type Diagnostic } from '../src/diagnostics/index.js';
import { initProject } from '../src/cli/init.js';
import { contentDir, tempDir } from './support/content.js';

const ADDON = `id: org.example.films
version: 1.0.0
name: Public Domain Films
catalogs:
  - { id: films, type: movie, name: Films }
  - { id: serials, type: series, name: Serials }
  - { id: cartoons, type: movie, name: Cartoons, genres: [Animation, Comedy], items: listed }
`;

/** Builds (without writing) `files` beside ADDON (or their own addon.yaml): the diagnostics, files relative to the folder. */
async function check(files: Record<string, string>): Promise<Diagnostic[]> {
  const dir = await contentDir({ 'addon.yaml': ADDON, ...files });
  const result = await build({ contentDir: dir });
  return result.diagnostics.map((d) => mapDiagnosticFiles(d, (file) => path.relative(dir, file)));
}

/** The one diagnostic of `code`, with every field. */
function only(diagnostics: Diagnostic[], code: string): Diagnostic {
  const found = diagnostics.filter((d) => d.code === code);
  expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
  return found[0]!;
}

describe('common mistakes', () => {
  it("1. a type one letter from a catalog's: a warning at the type, did you mean, and no uncovered-type", async () => {
    const diagnostics = await check({ 'nosferatu.yaml': 'id: pd:nosferatu-1922\ntype: movies\nname: Nosferatu\n' });
    expect(diagnostics).toEqual([
      {
        code: 'unknown-type',
        severity: 'warning',
        file: 'nosferatu.yaml',
        line: 2,
        column: 7,
        path: 'type',
        message: 'no catalog lists items of type "movies", so this item is in none',
        hint: 'did you mean "movie"? Catalog "films" lists movie items; a type of your own needs a catalog of that type',
      },
    ]);
  });

  it("1b. a known type in another case, or with two letters swapped, and none for a type of one's own", async () => {
    const diagnostics = await check({
      'a.yaml': 'id: pd:a\ntype: Series\nname: A\n',
      'b.yaml': 'id: pd:b\ntype: chanel\nname: B\n',
      'c.yaml': 'id: pd:c\ntype: moive\nname: C\n',
      'd.yaml': 'id: pd:d\ntype: anime\nname: D\n',
    });
    const types = diagnostics.filter((d) => d.code === 'unknown-type').map((d) => [d.file, d.line, d.column, d.hint]);
    expect(types).toEqual([
      ['a.yaml', 2, 7, 'did you mean "series"? Catalog "serials" lists series items; a type of your own needs a catalog of that type'],
      ['b.yaml', 2, 7, 'did you mean "channel"? A type of your own needs a catalog of that type'],
      ['c.yaml', 2, 7, 'did you mean "movie"? Catalog "films" lists movie items; a type of your own needs a catalog of that type'],
    ]);
    // `anime` is a type of one's own, far from every other: only the usual uncovered-type.
    expect(only(diagnostics, 'uncovered-type')).toMatchObject({ file: 'd.yaml', severity: 'warning' });
  });

  it('1c. no warning for a type that addon.yaml declares in `types`', async () => {
    const addon = ADDON.replace('catalogs:', 'types: [movie, series, movies]\ncatalogs:');
    const diagnostics = await check({ 'addon.yaml': addon, 'a.yaml': 'id: pd:a\ntype: movies\nname: A\n' });
    expect(diagnostics.map((d) => d.code)).toEqual(['uncovered-type']);
  });

  it('2. a genre that a catalog with a fixed genres list does not offer: at the genre, did you mean when close', async () => {
    const diagnostics = await check({
      'betty-boop.yaml': 'id: pd:betty-boop\ntype: movie\nname: Betty Boop\ncatalogs: [cartoons]\ngenres: [Animation, Comdy, Horror]\n',
      // Not listed by the cartoons catalog: its genres are for `films`, whose genres are not fixed.
      'nosferatu.yaml': 'id: pd:nosferatu\ntype: movie\nname: Nosferatu\ngenres: [Horror, Comdy]\n',
    });
    expect(diagnostics).toEqual([
      {
        code: 'unknown-genre',
        severity: 'warning',
        file: 'betty-boop.yaml',
        line: 5,
        column: 21,
        path: 'genres[1]',
        message: 'catalog "cartoons" does not offer the genre "Comdy": its genre filter will not show this item under it',
        hint: 'did you mean "Comedy"?',
      },
      {
        code: 'unknown-genre',
        severity: 'warning',
        file: 'betty-boop.yaml',
        line: 5,
        column: 28,
        path: 'genres[2]',
        message: 'catalog "cartoons" does not offer the genre "Horror": its genre filter will not show this item under it',
        hint: 'add "Horror" to the genres of catalog "cartoons" in addon.yaml, or write `genres: auto` there',
        related: [{ file: 'addon.yaml', line: 7, column: 58, message: 'the genres of catalog "cartoons"' }],
      },
    ]);
  });

  it('2b. a genre in a block list is reported on its own line', async () => {
    const d = only(
      await check({ 'a.yaml': '- id: pd:a\n  type: movie\n  name: A\n  catalogs: [cartoons]\n  genres:\n    - Animation\n    - Comedie\n' }),
      'unknown-genre',
    );
    expect(d).toMatchObject({ file: 'a.yaml', line: 7, column: 7, path: 'genres[1]', hint: 'did you mean "Comedy"?' });
  });

  it('3. a key indented further than the one above it: at that key, not at the value above', async () => {
    const d = only(
      await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nstreams:\n  - url: https://example.org/a.mp4\n     name: Internet Archive\n' }),
      'yaml-syntax',
    );
    expect(d).toEqual({
      code: 'yaml-syntax',
      severity: 'error',
      file: 'a.yaml',
      line: 6,
      column: 6,
      message: '"name" is indented further than "url" above it, so YAML reads this line as more of the value of "url"',
      hint: 'keys of one mapping start in the same column: indent "name" as far as "url" (column 5)',
    });
    // At the top level too; and a real `: ` in a value keeps its hint about quotes.
    const top = only(await check({ 'b.yaml': 'id: pd:b\ntype: movie\nname: B\n  poster: https://example.org/b.jpg\n' }), 'yaml-syntax');
    expect(top).toMatchObject({
      line: 4,
      column: 3,
      hint: 'keys of one mapping start in the same column: indent "poster" as far as "name" (column 1)',
    });
    const colon = only(await check({ 'c.yaml': 'id: pd:c\ntype: movie\nname: C\ndescription: the plot: a vampire\n' }), 'yaml-syntax');
    expect(colon).toMatchObject({ line: 4, column: 14, message: 'Nested mappings are not allowed in compact mappings' });
    expect(colon.hint).toMatch(/needs quotes/);
  });

  it('4. keys of one mapping in different columns: at the line, with both columns', async () => {
    const d = only(
      await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nstreams:\n  - url: https://example.org/a.mp4\n  description: SD\n' }),
      'yaml-syntax',
    );
    expect(d).toEqual({
      code: 'yaml-syntax',
      severity: 'error',
      file: 'a.yaml',
      line: 6,
      column: 1,
      message: 'All mapping items must start at the same column',
      hint: 'keys of one mapping start in the same column: this line starts in column 3, and "url" above it in column 5; indent with spaces to line them up',
      related: [{ file: 'a.yaml', line: 5, column: 5, message: '"url", in column 5' }],
    });
    // One column short of the keys of a list entry.
    const short = only(
      await check({ 'b.yaml': 'id: pd:b\ntype: movie\nname: B\nstreams:\n  - url: https://example.org/b.mp4\n   description: SD\n' }),
      'yaml-syntax',
    );
    expect(short).toMatchObject({
      line: 6,
      column: 1,
      message: 'Sequence item without - indicator',
      hint: 'keys of one mapping start in the same column: this line starts in column 4, and "url" above it in column 5; indent with spaces to line them up',
    });
  });

  it('5. a field written out of its empty parent: where it is, naming the parent', async () => {
    const diagnostics = await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nbehaviorHints:\ndefaultVideoId: pd:a\n' });
    expect(only(diagnostics, 'unknown-field')).toEqual({
      code: 'unknown-field',
      severity: 'error',
      file: 'a.yaml',
      line: 5,
      column: 1,
      path: 'defaultVideoId',
      message: 'unknown field "defaultVideoId"',
      hint: '"defaultVideoId" is a field of behaviorHints, which is empty: indent "defaultVideoId" further than behaviorHints to put it there',
      related: [{ file: 'a.yaml', line: 4, column: 1, message: 'behaviorHints, which is empty' }],
    });
    expect(only(diagnostics, 'invalid-value')).toMatchObject({
      line: 4,
      column: 15,
      path: 'behaviorHints',
      message: 'expected a mapping, found null (an empty value)',
      hint: 'write its fields on the lines below "behaviorHints", indented further than it, or remove "behaviorHints"',
    });
  });

  it('6. a tab in the indentation', async () => {
    const d = only(await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nstreams:\n\t- url: https://example.org/a.mp4\n' }), 'yaml-syntax');
    expect(d).toEqual({
      code: 'yaml-syntax',
      severity: 'error',
      file: 'a.yaml',
      line: 5,
      column: 1,
      message: 'Tabs are not allowed as indentation',
      hint: 'YAML does not allow tabs in indentation: indent with spaces (most editors can insert spaces for .yaml files)',
    });
  });

  it("7. a misspelled field in nested places: a catalog's `genre`, a stream's `descripton`", async () => {
    const addon = ADDON.replace('genres: [Animation, Comedy]', 'genre: [Animation, Comedy]');
    const inAddon = only(await check({ 'addon.yaml': addon }), 'unknown-field');
    expect(inAddon).toEqual({
      code: 'unknown-field',
      severity: 'error',
      file: 'addon.yaml',
      line: 7,
      column: 50,
      path: 'catalogs[2].genre',
      message: 'unknown field "genre"',
      hint: 'did you mean "genres"?',
    });
    const inStream = only(
      await check({
        'a.yaml':
          'id: pd:a\ntype: series\nname: A\nvideos:\n  - season: 1\n    episode: 1\n    streams:\n      - url: https://example.org/a.mp4\n        descripton: SD\n',
      }),
      'unknown-field',
    );
    expect(inStream).toMatchObject({ line: 9, column: 9, path: 'videos[0].streams[0].descripton', hint: 'did you mean "description"?' });
  });

  it('8. a year as `released`', async () => {
    const d = only(await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nreleased: 1922\n' }), 'invalid-value');
    expect(d).toEqual({
      code: 'invalid-value',
      severity: 'error',
      file: 'a.yaml',
      line: 4,
      column: 11,
      path: 'released',
      message: 'expected a date such as 1922-03-04, found 1922',
      hint: 'for a year, write the whole date (released: 1922-01-01), or the year as text: releaseInfo: "1922"',
    });
  });

  it('9. a stream URL without its scheme', async () => {
    const dir = await contentDir({
      'addon.yaml': ADDON,
      'a.yaml': 'id: pd:a\ntype: movie\nname: A\nstreams:\n  - url: archive.org/download/a/a.mp4\n',
    });
    const diagnostics = (await build({ contentDir: dir })).diagnostics;
    expect(diagnostics).toEqual([
      {
        code: 'missing-asset',
        severity: 'error',
        file: path.join(dir, 'a.yaml'),
        line: 5,
        column: 10,
        path: 'streams[0].url',
        message: `"archive.org/download/a/a.mp4" is neither a URL nor an existing file (looked for ${path.join(dir, 'archive.org/download/a/a.mp4')})`,
        hint: 'did you mean "https://archive.org/download/a/a.mp4"? A URL needs its scheme; without one it is a file name',
      },
    ]);
  });

  it('9b. a local file whose name looks like a host keeps the hint about paths', async () => {
    const files = await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nposter: nosferatu.jpg\nbackground: images.v2/bg.png\n' });
    expect(files.map((d) => [d.code, d.path, d.hint])).toEqual(
      ['poster', 'background'].map((field) => [
        'missing-asset',
        field,
        'check the spelling and that the path is relative to the folder of this file; URLs need their scheme (https://…)',
      ]),
    );
    const www = only(await check({ 'b.yaml': 'id: pd:b\ntype: movie\nname: B\nposter: www.example.org\n' }), 'missing-asset');
    expect(www.hint).toBe('did you mean "https://www.example.org"? A URL needs its scheme; without one it is a file name');
  });

  it('10. a season in quotes', async () => {
    const d = only(await check({ 'a.yaml': 'id: pd:a\ntype: series\nname: A\nvideos:\n  - season: "1"\n    episode: 1\n' }), 'invalid-value');
    expect(d).toEqual({
      code: 'invalid-value',
      severity: 'error',
      file: 'a.yaml',
      line: 5,
      column: 13,
      path: 'videos[0].season',
      message: 'expected a number, found "1"',
      hint: 'write 1 without quotes: in quotes it is text',
    });
  });
});

describe('more mistakes', () => {
  it('a line that goes on with the value above, as far left as a key', async () => {
    const d = only(await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\ndescription: A vampire comes\nto Wisborg.\n' }), 'yaml-syntax');
    expect(d).toEqual({
      code: 'yaml-syntax',
      severity: 'error',
      file: 'a.yaml',
      line: 5,
      column: 1,
      message: 'Implicit map keys need to be followed by map values',
      hint: 'a line without "key:" continues the value above it, so it must be indented further than that value\'s key: indent it to continue the value of "description", or add the ":" a key needs',
      related: [{ file: 'a.yaml', line: 4, column: 1, message: '"description", in column 1' }],
    });
  });

  it('the first key of a mapping indented further than the next', async () => {
    const d = only(
      await check({ 'a.yaml': 'id: pd:a\ntype: movie\nname: A\nbehaviorHints:\n    defaultVideoId: x\n  hasScheduledVideos: false\n' }),
      'yaml-syntax',
    );
    expect(d).toMatchObject({
      line: 6,
      column: 1,
      hint: 'keys of one mapping start in the same column: this line starts in column 3, and "defaultVideoId" above it in column 5; indent with spaces to line them up',
    });
  });

  it('two ids that differ only in case', async () => {
    const diagnostics = await check({ 'a.yaml': 'id: pd:Nosferatu\ntype: movie\nname: A\n', 'b.yaml': 'id: pd:nosferatu\ntype: movie\nname: B\n' });
    expect(only(diagnostics, 'case-conflict')).toMatchObject({ severity: 'error', file: 'b.yaml', line: 1, column: 5 });
  });

  it('the example content and a project made by init build without a warning', async () => {
    const result = await build({ contentDir: path.join(import.meta.dirname, '..', 'content') });
    expect(result.diagnostics).toEqual([]);
    const project = path.join(await tempDir(), 'my-addon');
    await initProject({ dir: project });
    expect((await build({ contentDir: path.join(project, 'content') })).diagnostics).toEqual([]);
  });
});
