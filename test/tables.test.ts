// Tables (CSV content files, src/load/csv.ts): quoted cells, a byte order mark, CRLF, lists and
// merged rows built into exactly the files expected; each misuse at its file, line and column,
// with nothing written; incremental builds; examples/table walked by the real client core.
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { startServer } from '../src/serve/index.js';
import { MAX_PROBLEMS_PER_FILE, sortDiagnostics, type Diagnostic } from '../src/diagnostics/index.js';
import { lineStartsOf, position, readRow, valueOffset } from '../src/load/csv-cells.js';
import { walkAddon } from './support/client-walk.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { BROWSER_ORIGIN, startCore } from './support/stremio-core.js';
import { freePort } from './support/wrangler.js';

const QUOTING = fileURLToPath(new URL('./fixtures/tables/quoting', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../examples/table', import.meta.url));

const json = (tree: Map<string, Buffer>, file: string): unknown => JSON.parse(tree.get(file)!.toString());

describe('a table', () => {
  it('reads quoted cells (commas, quotes, line breaks), a byte order mark, CRLF, lists, empty cells and numbers into exactly these files', async () => {
    const text = await readFile(path.join(QUOTING, 'films.csv'));
    // The fixture is what the test says it is.
    expect([...text.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.toString()).toContain('\r\n');
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: QUOTING, outDir: out });
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);
    const a = {
      id: 'pd:a',
      type: 'movie',
      name: 'Say "Hi", Again',
      // The CRLF inside the quoted cell is a line break of the value, written as \n.
      description: 'First line\nsecond, with a comma',
      releaseInfo: '1940',
      genres: ['Drama', 'Film Noir'],
    };
    const b = { id: 'pd:b', type: 'movie', name: 'B', poster: 'https://example.org/b.jpg' };
    expect(json(tree, 'meta/movie/pd:a.json')).toEqual({ meta: a });
    expect(json(tree, 'meta/movie/pd:b.json')).toEqual({ meta: b });
    expect(json(tree, 'stream/movie/pd:a.json')).toEqual({
      streams: [{ name: 'Archive', description: 'SD, 512 kbit/s', url: 'https://example.org/a.mp4' }],
    });
    // Three rows of pd:b: a stream from the first and the third, none from the second (no stream cell).
    expect(json(tree, 'stream/movie/pd:b.json')).toEqual({
      streams: [{ name: 'Torrent', infoHash: 'dd8255ecdc7ca55fb0bbf81323d87062db1f6d1c', fileIdx: 2 }, { url: 'https://example.org/b.mp4' }],
    });
    expect(json(tree, 'catalog/movie/films.json')).toEqual({ metas: [a, b] });
    const manifest = json(tree, 'manifest.json') as { types: string[]; idPrefixes: string[] };
    expect(manifest.types).toEqual(['movie']);
    expect(manifest.idPrefixes).toEqual(['pd:']);
    expect([...tree.keys()].filter((f) => /^(meta|stream|catalog)\//.test(f) && f.endsWith('.json')).sort()).toEqual([
      'catalog/movie/films.json',
      'catalog/movie/films/skip=2.json',
      'meta/movie/pd:a.json',
      'meta/movie/pd:b.json',
      'stream/movie/pd:a.json',
      'stream/movie/pd:b.json',
    ]);
  });

  it('skips rows whose cells are all empty, as a spreadsheet saves them below the table, and builds silently', async () => {
    const table = 'id,type,name,url\r\n,,,\r\npd:a,movie,A,https://example.org/a.mp4\r\n,,,\r\n"","",,\r\n,,,\r\n';
    const dir = await contentDir({ 'addon.yaml': ADDON, 'films.csv': table });
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.diagnostics).toEqual([]);
    expect(result.counts).toMatchObject({ items: 1, streams: 1 });
    expect(json(await readTree(out), 'catalog/movie/films.json')).toEqual({ metas: [{ id: 'pd:a', type: 'movie', name: 'A' }] });
    // Blank rows only, under a header without a type column: nothing to say about the rows.
    const empty = await contentDir({ 'addon.yaml': ADDON, 'films.csv': 'id,name\n,\n,\n', 'a.yaml': 'id: pd:b\ntype: movie\nname: B\n' });
    expect((await build({ contentDir: empty, outDir: path.join(await tempDir(), 'dist') })).diagnostics).toEqual([]);
  });

  it('counts its items and streams in the summary like any', async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: QUOTING, outDir: out });
    expect(result.counts).toMatchObject({ items: 2, streams: 3 });
  });
});

/** Where a problem is, as people read it: `file:line:column code path`. */
const where = (d: Diagnostic) => `${path.basename(d.file ?? '')}:${d.line}:${d.column} ${d.code}${d.path === undefined ? '' : ` ${d.path}`}`;

const ADDON = addonYaml('catalogs:\n  - { id: films, type: movie, name: Films }\n');

/** The problems of a build of `table` as films.csv, which must fail and write nothing. */
async function misuse(table: string): Promise<Diagnostic[]> {
  const dir = await contentDir({ 'addon.yaml': ADDON, 'films.csv': table });
  const out = path.join(await tempDir(), 'dist');
  const result = await build({ contentDir: dir, outDir: out });
  expect(result.ok).toBe(false);
  expect(existsSync(out), 'nothing written').toBe(false);
  return sortDiagnostics(result.diagnostics);
}

describe('the cells of a row (csv-cells.ts)', () => {
  it('finds each cell, quoted or not, where its row ends, and the character that breaks the rules', () => {
    const text = 'a,"b,""c""\r\nd",,e\r\nnext';
    const row = readRow(text, 0);
    expect(row.cells).toEqual([
      { start: 0, end: 1, quoted: false },
      { start: 2, end: 14, quoted: true },
      { start: 15, end: 15, quoted: false },
      { start: 16, end: 17, quoted: false },
    ]);
    expect(row.end).toBe(19);
    expect(text.slice(row.end)).toBe('next');
    expect(readRow('x,"y', 0).fault).toEqual({ kind: 'unclosed-quote', offset: 2 });
    expect(readRow('x,"y"z', 0).fault).toEqual({ kind: 'after-quote', offset: 5 });
    expect(readRow('x,y"z', 0).fault).toEqual({ kind: 'quote-in-cell', offset: 3 });
  });

  it('maps a character of a quoted value to the text, past doubled quotes and CRLF', () => {
    const text = '"a""b\r\nc"';
    const cell = readRow(text, 0).cells[0]!;
    // The value is a"b\nc: its "c" (index 4) is at offset 7 in the text.
    expect(valueOffset(text, cell, 0)).toBe(1);
    expect(valueOffset(text, cell, 2)).toBe(4);
    expect(valueOffset(text, cell, 4)).toBe(7);
  });

  it('turns offsets into 1-based lines and columns', () => {
    const starts = lineStartsOf('ab\r\ncd\nef');
    expect(starts).toEqual([0, 4, 7]);
    expect(position(starts, 0)).toEqual({ line: 1, column: 1 });
    expect(position(starts, 5)).toEqual({ line: 2, column: 2 });
    expect(position(starts, 8)).toEqual({ line: 3, column: 2 });
  });
});

describe('each misuse of a table, at its file, line and column, with nothing written', () => {
  it('an unknown column: at its header cell, with a did-you-mean among the columns', async () => {
    const [d, ...rest] = await misuse('id,type,name,relased\npd:a,movie,A,1922-03-04\n');
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('films.csv:1:14 unknown-field relased');
    expect(d!.hint).toBe('did you mean "released"?');
  });

  it('bad values: at their cells, a quoted cell at its opening quote, a list entry at its own text', async () => {
    const table = [
      'id,type,name,poster,posterShape,genres,fileIdx,infoHash',
      'pd:a,movie,A,posters/a.jpg,"wide","Drama | ""Bad""/Genre",x,dd8255ecdc7ca55fb0bbf81323d87062db1f6d1c',
      'pd:b,"",B,,,,,',
    ].join('\n');
    expect((await misuse(`${table}\n`)).map(where)).toEqual([
      'films.csv:2:14 missing-asset poster',
      // A quoted cell: at its opening quote.
      'films.csv:2:28 invalid-value posterShape',
      // "Drama | ""Bad""/Genre": the second entry starts at its first quote, past "Drama | ".
      'films.csv:2:44 bad-file-name genres[1]',
      'films.csv:2:59 invalid-value streams[0].fileIdx',
      // An empty cell, quoted or not, is an absent field: the missing type points at that cell.
      'films.csv:3:6 missing-field type',
    ]);
  });

  it('no type or id column: one error at the end of the header, where the column goes, and none at the rows', async () => {
    const rows = 'pd:a,A,https://example.org/a.mp4\npd:b,B,https://example.org/b.mp4\npd:c,C,https://example.org/c.mp4\n';
    const [d, ...rest] = await misuse(`id,name,url\n${rows}`);
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('films.csv:1:12 missing-field type');
    expect(d!.message).toBe('the table has no "type" column, and every item needs a type');
    expect(d!.hint).toBe("add a type column with each row's type: movie, series, channel, tv, or one of your own");
    const [e, ...others] = await misuse('type,name\nmovie,A\nmovie,B\n');
    expect(others).toEqual([]);
    expect(where(e!)).toBe('films.csv:1:10 missing-field id');
    expect(e!.hint).toMatch(/^add an id column/);
    // A misspelt header cell has its did-you-mean, which says it all.
    expect((await misuse('id,Type,name\npd:a,movie,A\n')).map((p) => `${where(p)} ${p.hint}`)).toEqual([
      'films.csv:1:4 unknown-field Type did you mean "type"?',
    ]);
  });

  it('a list entry past an empty one (a | too many) is found at its text; the empty one is dropped', async () => {
    expect((await misuse('id,type,name,genres\npd:a,movie,A,Drama| |Co/medy\n')).map(where)).toEqual(['films.csv:2:22 bad-file-name genres[1]']);
    const dir = await contentDir({ 'addon.yaml': ADDON, 'films.csv': 'id,type,name,genres\npd:a,movie,A,Drama| |\n' });
    const result = await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist') });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.items[0]!.genres).toEqual(['Drama']);
  });

  it('an empty cell of a field the item needs: a hint about that cell, at the cell', async () => {
    const diagnostics = await misuse('id,type,name,poster\npd:a,,A,\npd:b,movie,,https://example.org/b.jpg\n');
    expect(diagnostics.map((p) => `${where(p)}: ${p.hint}`)).toEqual([
      "films.csv:2:6 missing-field type: fill in this row's type cell",
      'films.csv:3:12 missing-field name: fill in its name cell (the name column) if this addon describes the title; ' +
        'if another addon describes it (Cinemeta, for IMDb ids tt…), fill in only its id, type and stream cells, with its poster cell empty',
    ]);
  });

  it('a stream with two sources: at the first of its cells in that row', async () => {
    const table = 'id,type,name,url,ytId\npd:a,movie,A,https://example.org/a.mp4,\npd:a,movie,A,https://example.org/b.mp4,YE7VzlLtp-4\n';
    expect((await misuse(table)).map(where)).toEqual(['films.csv:3:14 stream-source streams[1]']);
  });

  it('rows of one id that differ: at the later cell, with the earlier one as a note', async () => {
    const [d, ...rest] = await misuse('id,type,name,url\npd:a,movie,A,https://example.org/a.mp4\npd:a,movie,B,https://example.org/b.mp4\n');
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('films.csv:3:12 csv-rows-differ name');
    expect(d!.related).toEqual([{ file: d!.file, line: 2, column: 12, message: 'the earlier row' }]);
    // The same list with other spaces is the same value.
    const dir = await contentDir({
      'addon.yaml': ADDON,
      'films.csv':
        'id,type,name,genres,url\npd:a,movie,A,Drama|Horror,https://example.org/a.mp4\npd:a,movie,A,Drama | Horror,https://example.org/b.mp4\n',
    });
    expect((await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist') })).diagnostics).toEqual([]);
  });

  it('an unclosed quote: at the quote', async () => {
    const table = 'id,type,name\r\npd:a,movie,A\r\npd:b,movie,"B\r\npd:c,movie,C\r\n';
    expect((await misuse(table)).map(where)).toEqual(['films.csv:3:12 csv-syntax']);
  });

  it('too many cells: at the first cell past the header; too few: at the end of the row', async () => {
    expect((await misuse('id,type,name\npd:a,movie,A,Drama, Horror\n')).map(where)).toEqual(['films.csv:2:14 csv-syntax']);
    expect((await misuse('id,type,name\npd:a,movie\n')).map(where)).toEqual(['films.csv:2:11 csv-syntax']);
  });

  it('a quote in an unquoted cell, text after a closing quote, a column twice or unnamed', async () => {
    expect((await misuse('id,type,name\npd:a,movie,The "Great" Robbery\n')).map(where)).toEqual(['films.csv:2:16 csv-syntax']);
    expect((await misuse('id,type,name\npd:a,movie,"The" Great\n')).map(where)).toEqual(['films.csv:2:17 csv-syntax']);
    expect((await misuse('id,type,name,name\npd:a,movie,A,B\n')).map(where)).toEqual(['films.csv:1:14 csv-syntax name']);
    expect((await misuse('id,type,,name\npd:a,movie,,A\n')).map(where)).toEqual(['films.csv:1:9 csv-syntax']);
  });
});

describe('a table separated by semicolons, as Excel saves CSV where the comma is the decimal mark', () => {
  it('is one error at the first semicolon of the header, and nothing about its rows; a header with commas is read as one', async () => {
    const table = 'id;type;name;url\r\npd:a;movie;Drama, Horror;https://example.org/a.mp4\r\npd:b;movie;B;https://example.org/b.mp4\r\n';
    const [d, ...rest] = await misuse(table);
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('films.csv:1:3 csv-syntax');
    expect(d!.message).toBe('the header has semicolons and no comma: the file looks separated by semicolons, and a table is separated by commas');
    expect(d!.hint).toMatch(/^save it as comma-separated: in Excel, "CSV UTF-8 \(Comma delimited\)"/);
    // Not said of a header with commas, whose cells may hold semicolons.
    const [e, ...others] = await misuse('id,type,name,notes;extra\npd:a,movie,A,x\n');
    expect(others).toEqual([]);
    expect(where(e!)).toBe('films.csv:1:14 unknown-field notes;extra');
  });
});

describe('a flood of problems in a table', () => {
  it('shows the first hundred of a header of unknown columns, and counts the rest', async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `x${i}`);
    const diagnostics = await misuse(`id,type,name,${names.join(',')}\npd:a,movie,A${','.repeat(names.length)}\n`);
    expect(diagnostics.filter((d) => d.code === 'unknown-field')).toHaveLength(MAX_PROBLEMS_PER_FILE);
    expect(diagnostics.find((d) => d.code === 'too-many-problems')?.message).toMatch(/4,?900 more errors/);
  });
});

describe('incremental builds of a table', () => {
  it('an edited row rewrites only its item files, and the output equals a clean build', async () => {
    const rows = (bUrl: string) =>
      [
        'id,type,name,genres,url',
        'pd:a,movie,A,Drama,https://example.org/a.mp4',
        `pd:b,movie,B,Drama,${bUrl}`,
        'pd:c,movie,C,Comedy,https://example.org/c.mp4',
      ].join('\n');
    const dir = await contentDir({ 'addon.yaml': ADDON, 'films.csv': `${rows('https://example.org/b.mp4')}\n` });
    const out = path.join(await tempDir(), 'dist');
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const before = await readTree(out);
    const times = new Map<string, number>();
    for (const file of before.keys()) times.set(file, (await stat(path.join(out, file))).mtimeMs);

    await writeFile(path.join(dir, 'films.csv'), `${rows('https://example.org/b2.mp4')}\n`);
    const rebuilt = await build({ contentDir: dir, outDir: out });
    const after = await readTree(out);
    const changed = [...after].filter(([file, bytes]) => !before.get(file)?.equals(bytes)).map(([file]) => file);
    expect(changed).toEqual(['stream/movie/pd:b.json']);
    expect(rebuilt.write).toMatchObject({ written: 1, removed: 0 });
    for (const [file, time] of times) if (file !== 'stream/movie/pd:b.json') expect((await stat(path.join(out, file))).mtimeMs, file).toBe(time);

    const clean = path.join(await tempDir(), 'dist');
    await build({ contentDir: dir, outDir: clean });
    expect(after).toEqual(await readTree(clean));
  });
});

describe('serve --watch on a table', () => {
  it('serves an edited row after the rebuild its save starts', async () => {
    const table = (name: string) => `id,type,name\r\npd:w,movie,${name}\r\n`;
    const dir = await contentDir({ 'addon.yaml': ADDON, 'films.csv': table('Before') });
    const server = await startServer({ contentDir: dir, port: 0, watch: true, debounceMs: 30 });
    const name = async () => ((await (await fetch(`${server.url}meta/movie/pd%3Aw.json`)).json()) as { meta: { name: string } }).meta.name;
    try {
      expect(await name()).toBe('Before');
      await writeFile(path.join(dir, 'films.csv'), table('After'));
      const until = Date.now() + 10_000;
      while ((await name()) !== 'After' && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await name()).toBe('After');
    } finally {
      await server.close();
    }
  });
});

describe('examples/table in the real client core', () => {
  it('on nginx set up like GitHub Pages, under a sub-path: every catalog, meta and stream, no failure', async () => {
    const port = await freePort();
    const out = path.join(await tempDir('addon-gen-table-'), 'dist');
    const result = await build({ contentDir: EXAMPLE, outDir: out, baseUrl: `http://127.0.0.1:${port}/repo/`, hosts: ['github-pages'] });
    // Silently: no error and no warning.
    expect(result.diagnostics).toEqual([]);
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
    try {
      const walked = await walkAddon(core, `${nginx.url}manifest.json`);
      expect(walked.failures).toEqual([]);
      expect(walked.counts.metas).toBe(3);
      expect(walked.counts.streams).toBe(5);
      expect(walked.requests.every((r) => r.allowOrigin === '*')).toBe(true);
    } finally {
      await core.stop();
      await nginx.close();
    }
  }, 120_000);
});
