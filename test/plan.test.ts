// Catalog paging on built files: a client walk from the first page to the empty one, for the sizes
// around the page boundary, with and without a genre, in both orders of extras. And optional
// fields, which are written only where the content sets them.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { mapDiagnosticFiles } from '../src/diagnostics/index.js';
import { earlyAnswers, provisionalContent, type EarlyAnswers } from '../src/plan/early-answers.js';
import type { CheckedItems } from '../src/validate/index.js';
import type { Content } from '../src/shared/content.js';
import { keptPreviews } from '../src/plan/previews.js';
import { pageElements } from '../src/plan/edit-pages.js';
import { genreLinks, metaPreview } from '../src/plan/wire.js';
import { addonYaml, contentDir, movies, readTree, tempDir } from './support/content.js';
import { walkCatalog } from './support/walk.js';

const id = (i: number) => `t:${String(i).padStart(4, '0')}`;

describe('catalog paging', () => {
  for (const total of [0, 1, 99, 100, 101, 250]) {
    it(`serves ${total} items in pages of 100 and ends with an empty page`, async () => {
      // Every third item is a Drama, so the genre filter pages differently from the catalog.
      const dir = await contentDir({
        'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All, genres: [Drama, Comedy] }\n'),
        'movies.yaml': total > 0 ? movies(total, (i) => (i % 3 === 0 ? ['Drama'] : ['Comedy'])) : '',
      });
      const out = await tempDir();
      const result = await build({ contentDir: dir, outDir: out });
      expect(result.ok).toBe(true);
      const tree = await readTree(out);

      const all = Array.from({ length: total }, (_, i) => id(i));
      const dramas = all.filter((_, i) => i % 3 === 0);
      const plain = walkCatalog(tree, 'movie', 'all');
      expect(plain.ids).toEqual(all);
      expect(plain.requests.length).toBe(Math.ceil(total / 100) + 1);
      for (const order of ['skip-first', 'genre-first'] as const) {
        expect(walkCatalog(tree, 'movie', 'all', 'Drama', order).ids, order).toEqual(dramas);
      }

      // Nothing but those pages: first, every 100, and the empty one at skip=<total>.
      const catalogFiles = [...tree.keys()].filter((f) => f.startsWith('catalog/movie/all/')).map((f) => path.basename(f, '.json'));
      const skips = (count: number) => {
        const list = [];
        for (let skip = 100; skip < count; skip += 100) list.push(skip);
        return [...list, count];
      };
      const expected = [
        ...skips(total).map((s) => `skip=${s}`),
        'genre=Drama',
        'genre=Comedy',
        ...skips(dramas.length).flatMap((s) => [`skip=${s}&genre=Drama`, `genre=Drama&skip=${s}`]),
        ...skips(total - dramas.length).flatMap((s) => [`skip=${s}&genre=Comedy`, `genre=Comedy&skip=${s}`]),
      ];
      expect(catalogFiles.sort()).toEqual(expected.sort());
    });
  }
});

describe('genre pages', () => {
  it('list an item once, however often it names the genre', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All, genres: auto }\n'),
      'movies.yaml': movies(3, (i) => (i === 1 ? ['Drama', 'Comedy', 'Drama'] : ['Drama'])),
    });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const tree = await readTree(out);
    expect(walkCatalog(tree, 'movie', 'all', 'Drama').ids).toEqual([id(0), id(1), id(2)]);
    expect(walkCatalog(tree, 'movie', 'all', 'Comedy').ids).toEqual([id(1)]);
  });
});

describe('genres of one catalog that differ only in case', () => {
  /** The case-conflicts of building `files`, their files relative to the folder. */
  async function caseConflicts(files: Record<string, string>) {
    const dir = await contentDir(files);
    const result = await build({ contentDir: dir });
    return result.diagnostics.filter((d) => d.code === 'case-conflict').map((d) => mapDiagnosticFiles(d, (file) => path.relative(dir, file)));
  }
  const AUTO = 'catalogs:\n  - { id: d, type: movie, name: D, genres: auto, sort: name }\n';

  it("are one error, at the genre of the item read later, with the other spelling's item beside it", async () => {
    // Sorted by name, the later file's item comes first in the catalog: it is still the one reported.
    const conflicts = await caseConflicts({
      'addon.yaml': addonYaml(AUTO),
      'a.yaml': '- { id: "g:x1", type: movie, name: F, genres: [Drama] }\n',
      'b.yaml': '- { id: "g:x2", type: movie, name: E, genres: [Comedy, drama] }\n',
    });
    expect(conflicts).toEqual([
      {
        code: 'case-conflict',
        severity: 'error',
        file: 'b.yaml',
        line: 1,
        column: 56,
        path: 'genres[1]',
        message:
          'genre "drama" of catalog "d" differs from its genre "Drama" only in letter case: each page of one (catalog/movie/d/genre=drama.json) and the same page of the other (catalog/movie/d/genre=Drama.json) would be one file',
        hint: 'give the catalog\'s items one spelling of the genre ("Drama" or "drama"): file systems and hosts that ignore case or Unicode normalization would make the pages of both one file',
        related: [{ file: 'a.yaml', line: 1, column: 48, message: 'the first item with genre "Drama"' }],
      },
    ]);
  });

  it('are one error for each pair of spellings, whatever the pages and configurations', async () => {
    // 150 items of each spelling: two pages each, in both orders of extras, in each of two trees.
    const config = 'behaviorHints: { configurable: true }\nconfig:\n  - { key: q, type: select, title: Q, options: [a, b], default: a }\n';
    const conflicts = await caseConflicts({
      'addon.yaml': addonYaml(config + AUTO),
      'a.yaml': movies(300, (i) => [i < 150 ? 'News' : 'news']),
      'b.yaml': '- { id: "g:x1", type: movie, name: X, genres: [NEWS] }\n',
    });
    expect(conflicts.map((d) => [d.file, d.line, d.path, d.related?.[0]?.line, d.message.replace(/ only in .*/, '')])).toEqual([
      ['a.yaml', 754, 'genres[0]', 4, 'genre "news" of catalog "d" differs from its genre "News"'],
      ['b.yaml', 1, 'genres[0]', 4, 'genre "NEWS" of catalog "d" differs from its genre "News"'],
    ]);
  });

  it('in a playlist are one error, at the group-title of the channel that brings in the later spelling', async () => {
    const m3u = '#EXTM3U\n#EXTINF:-1 group-title="News",A\nhttp://example.com/a.m3u8\n#EXTINF:-1 group-title="news",B\nhttp://example.com/b.m3u8\n';
    const conflicts = await caseConflicts({
      'addon.yaml': addonYaml('catalogs:\n  - { id: channels, type: tv, name: TV, genres: auto }\n'),
      'tv.m3u': m3u,
    });
    expect(conflicts.map(({ file, line, column, path: at, related }) => ({ file, line, column, path: at, related }))).toEqual([
      {
        file: 'tv.m3u',
        line: 4,
        column: 12,
        path: 'genres[0]',
        related: [{ file: 'tv.m3u', line: 2, column: 12, message: 'the first item with genre "News"' }],
      },
    ]);
  });
});

describe('optional fields', () => {
  it('are written only when the content sets them: never null, never an empty value in their place', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: series, name: All }\n'),
      'shows.yaml': [
        '- id: "t:1"',
        '  type: series',
        '  name: Show',
        '  behaviorHints: { defaultVideoId: "t:1:1:1" }',
        '  videos:',
        '    - season: 1',
        '      episode: 1',
        '      streams:',
        '        - url: https://example.org/a.mp4',
        '          behaviorHints: { notWebReady: true, proxyHeaders: { request: { User-Agent: addon-gen } } }',
        '        - infoHash: 0123456789abcdef0123456789abcdef01234567',
        '',
      ].join('\n'),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    const tree = await readTree(out);
    const json = (file: string) => tree.get(file)!.toString('utf8');
    for (const file of ['meta/series/t:1.json', 'stream/series/t:1:1:1.json', 'catalog/series/all.json']) {
      expect(json(file), file).not.toMatch(/null|\{\}|\[\]/);
    }
    const { meta } = JSON.parse(json('meta/series/t:1.json'));
    expect(meta).toEqual({
      id: 't:1',
      type: 'series',
      name: 'Show',
      behaviorHints: { defaultVideoId: 't:1:1:1' },
      videos: [{ id: 't:1:1:1', title: 'Episode 1', season: 1, episode: 1 }],
    });
    const { streams } = JSON.parse(json('stream/series/t:1:1:1.json'));
    expect(streams).toEqual([
      { url: 'https://example.org/a.mp4', behaviorHints: { notWebReady: true, proxyHeaders: { request: { 'User-Agent': 'addon-gen' } } } },
      { infoHash: '0123456789abcdef0123456789abcdef01234567' },
    ]);
  });
});

describe('subtitles files', () => {
  it('are written for every item and video of the types with subtitles, and for the requests streams hint at', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All }\n  - { id: shows, type: series, name: Shows }\n'),
      'items.yaml': [
        '- { id: "m:subs", type: movie, name: A, subtitles: [{ lang: eng, url: "https://s.example.org/a.srt" }],',
        '    streams: [{ url: "https://v.example.org/a.mp4", behaviorHints: { filename: "A (1931) & B = C+D.mp4" } },',
        '              { url: "https://v.example.org/a2.mp4", behaviorHints: { filename: "a.mkv", videoSize: 42, videoHash: "0011223344556677" } },',
        '              { url: "https://v.example.org/a3.mp4", behaviorHints: { videoSize: 7, filename: "dir/a.mkv" } }] }',
        '- { id: "m:none", type: movie, name: B, streams: [{ url: "https://v.example.org/b.mp4" }] }',
        '- id: "s:show"',
        '  type: series',
        '  name: S',
        '  videos: [{ season: 1, episode: 1, streams: [{ url: "https://v.example.org/s.mp4" }] }]',
        '',
      ].join('\n'),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, hosts: ['cloudflare'] });
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);
    const subtitles = [...tree.keys()].filter((f) => f.startsWith('subtitles/') && f.endsWith('.json')).sort();
    // The series has no subtitles, so the manifest does not declare them for it and it gets none.
    expect(subtitles).toEqual([
      'subtitles/movie/m:none.json',
      'subtitles/movie/m:subs.json',
      'subtitles/movie/m:subs/filename=A (1931) & B = C+D.mp4.json',
      'subtitles/movie/m:subs/filename=a.mkv&videoSize=42&videoHash=0011223344556677.json',
    ]);
    const manifest = JSON.parse(tree.get('manifest.json')!.toString()) as { resources: unknown[] };
    // Only for the ids of those types: the series' `s:` ids have none.
    expect(manifest.resources).toContainEqual({ name: 'subtitles', types: ['movie'], idPrefixes: ['m:'] });
    expect(JSON.parse(tree.get('subtitles/movie/m:none.json')!.toString())).toEqual({ subtitles: [] });
    const list = tree.get('subtitles/movie/m:subs.json')!.toString();
    expect(JSON.parse(list).subtitles).toHaveLength(1);
    expect(tree.get('subtitles/movie/m:subs/filename=a.mkv&videoSize=42&videoHash=0011223344556677.json')!.toString()).toBe(list);
  });
});

describe('previews on catalog pages', () => {
  const content = {
    'addon.yaml': addonYaml(
      'baseUrl: https://example.org/addon/\ncatalogs:\n  - { id: films, type: movie, name: Films, genres: auto }\n  - { id: shows, type: series, name: Shows, genres: auto }\n',
    ),
    'titles.yaml': [
      '- { id: "t:1", type: movie, name: "Été à Paris", genres: [Drama, Comedy] }',
      '- id: "t:2"',
      '  type: movie',
      '  name: Cast',
      '  genres: [Drama]',
      '  links: [ { name: Someone, category: Cast, url: "stremio:///search?search=Someone" } ]',
      '- { id: "t:3", type: series, name: Show, genres: [Drama], behaviorHints: { defaultVideoId: "t:3:1:1" }, videos: [ { season: 1, episode: 1 } ] }',
      '- { id: "t:4", type: movie, name: Plain }',
      '',
    ].join('\n'),
  };

  it('are the meta’s own fields in its order, with its links: genre links alone, after its own, before its hints', async () => {
    const dir = await contentDir(content);
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const tree = await readTree(out);
    const json = (file: string): unknown => JSON.parse(tree.get(file)!.toString('utf8'));
    const listed = [
      ...(json('catalog/movie/films.json') as { metas: Record<string, unknown>[] }).metas,
      ...(json('catalog/series/shows.json') as { metas: Record<string, unknown>[] }).metas,
    ];
    expect(listed.map((preview) => preview.id).sort()).toEqual(['t:1', 't:2', 't:3', 't:4']);
    for (const preview of listed) {
      const { meta } = json(`meta/${String(preview.type)}/${String(preview.id)}.json`) as { meta: Record<string, unknown> };
      const shared = Object.keys(meta).filter((key) => key !== 'videos');
      expect(Object.keys(preview), String(preview.id)).toEqual(shared);
      expect(preview).toEqual(Object.fromEntries(shared.map((key) => [key, meta[key]])));
    }
    const byId = new Map(listed.map((preview) => [preview.id, preview]));
    const categories = (id: string) => (byId.get(id)!.links as { category: string; name: string }[]).map((l) => `${l.category}:${l.name}`);
    expect(categories('t:1')).toEqual(['Genres:Drama', 'Genres:Comedy']);
    expect(categories('t:2')).toEqual(['Cast:Someone', 'Genres:Drama']);
    expect(categories('t:3')).toEqual(['Genres:Drama']);
    expect(byId.get('t:4')!.links).toBeUndefined();
  });

  it('are measured at the bytes they are written with', async () => {
    const result = await build({ contentDir: await contentDir(content) });
    const links = genreLinks(result.content!);
    const previews = keptPreviews((item) => links.get(item));
    for (const item of result.content!.items) {
      // Measured first, as plan measures the output before it renders a page.
      const bytes = previews.bytesOf(item);
      const text = previews.previewOf(item);
      expect(text, item.id).toBe(JSON.stringify(metaPreview(item, links.get(item))));
      expect(bytes, item.id).toBe(Buffer.byteLength(text));
    }
  });
});

describe('a catalog page as an edit reads it (pageElements)', () => {
  const [head, tail] = [Buffer.from('{"metas":['), Buffer.from('],"cacheMaxAge":60}')];
  const ids = ['t:1', 'say "hi"', 'é', '日本', '😀', 'a\tb'];
  const previews = ids.map((id) => JSON.stringify({ id, type: 'movie', name: `N ${id}` }));
  const page = Buffer.from(`${head}${previews.join(',')}${tail}`);

  it('finds each preview where JSON writes its id', () => {
    const read = pageElements(page, { head, tail }, ids);
    expect(read).toBeDefined();
    const { bytes, starts } = read!;
    expect(ids.map((_, k) => bytes.subarray(starts[k], starts[k + 1]! - 1).toString())).toEqual(previews);
    const empty = Buffer.from(`${head}${tail}`);
    expect(pageElements(empty, { head, tail }, [])?.starts).toEqual(new Int32Array([head.length + 1]));
  });

  it('is undefined unless the page lists those ids, in that order', () => {
    const others = [
      ['t:10', ...ids.slice(1)],
      ['t:', ...ids.slice(1)],
      [ids[0]!, 'say "ho"', ...ids.slice(2)],
      [...ids.slice(0, 2), 'e', ...ids.slice(3)],
      [...ids.slice(0, 2), ids[3]!, ids[2]!, ...ids.slice(4)],
      ids.slice(0, -1),
      [...ids, 't:2'],
    ];
    for (const other of others) expect(pageElements(page, { head, tail }, other), JSON.stringify(other)).toBeUndefined();
    expect(pageElements(page, { head: Buffer.from('{"metas": ['), tail }, ids)).toBeUndefined();
  });
});

describe('early answers (serve --watch)', () => {
  // Two files of movies with genres and streams, one edited between two builds into folders of
  // their own: the early answers are compared with what the second build wrote.
  const addon = (extra = '') =>
    addonYaml(`baseUrl: https://example.org/addon/\ncatalogs:\n  - { id: all, type: movie, name: All, genres: auto, sort: name }\n${extra}`);
  const edited = (text: string) => text.replace('name: Movie 1\n', 'name: Edited 1\n  description: Now with one\n');
  /** `edit`: the files written before the second build; null removes one. */
  async function twoBuilds(files: Record<string, string>, edit: Record<string, string | null>) {
    const dir = await contentDir(files);
    const beforeOut = await tempDir();
    // What each build had once every file was checked on its own (provisionalContent).
    const checked: CheckedItems[] = [];
    const onItemsChecked = (items: CheckedItems) => void checked.push(items);
    const before = await build({ contentDir: dir, outDir: beforeOut, onItemsChecked, keepPreviews: true });
    for (const [name, text] of Object.entries(edit)) await (text === null ? rm(path.join(dir, name)) : writeFile(path.join(dir, name), text));
    const afterOut = await tempDir();
    const after = await build({ contentDir: dir, outDir: afterOut, onItemsChecked });
    expect(before.ok && after.ok).toBe(true);
    expect(checked).toHaveLength(2);
    const manifest = await readFile(path.join(beforeOut, 'manifest.json'), 'utf8');
    const sources = new Set(after.sources.filter((source) => source.relative in edit).map((source) => source.file));
    const built = { content: before.content!, manifest, settings: checked[0]!.settings, previews: before.previews };
    const early = earlyAnswers(built, after.content!, sources);
    // The item files, then the same with the catalog pages, as serve answers them.
    const withPages = (answers: EarlyAnswers | undefined) => answers && new Map([...answers.files, ...(answers.pages() ?? [])]);
    const content = provisionalContent(built, checked[1]!, sources);
    const sooner = withPages(content && earlyAnswers(built, content, sources));
    return { answers: early?.files, withPages: withPages(early), sooner, beforeOut, afterOut };
  }
  const a = movies(3, (i) => (i === 1 ? ['Drama', 'Comedy'] : ['Drama']));
  const b = movies(3, () => ['Comedy']).replaceAll('t:000', 'u:000');

  it("are the bytes the rebuild writes for each file of the edited file's items, and only those", async () => {
    const { answers, withPages, sooner, afterOut } = await twoBuilds({ 'addon.yaml': addon(), 'a.yaml': a, 'b.yaml': b }, { 'a.yaml': edited(a) });
    expect(answers).toBeDefined();
    // Made from the files checked each on its own, before the checks across them: the same.
    expect(sooner).toEqual(withPages);
    const written = await readTree(afterOut);
    const ofA = [...written.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/t:/.test(file));
    expect([...answers!.keys()].sort()).toEqual(ofA.sort());
    for (const [file, body] of answers!) expect(body, file).toBe(written.get(file)!.toString());
    // The edit is in them, and the genre links the pages follow.
    const meta = JSON.parse(answers!.get('meta/movie/t:0001.json')!) as { meta: { name: string; links: { url: string }[] } };
    expect(meta.meta.name).toBe('Edited 1');
    expect(meta.meta.links.map((link) => link.url)).toEqual([
      'stremio:///discover/https%3A%2F%2Fexample.org%2Faddon%2Fmanifest.json/movie/all?genre=Drama',
      'stremio:///discover/https%3A%2F%2Fexample.org%2Faddon%2Fmanifest.json/movie/all?genre=Comedy',
    ]);
  });

  it('are the stream and subtitles files of an edited title that another addon describes', async () => {
    // The bundled stream addon for Cinemeta's titles, one stream's URL edited.
    const example = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'streams');
    const files = Object.fromEntries(
      await Promise.all(['addon.yaml', 'titles.yaml'].map(async (name) => [name, await readFile(path.join(example, name), 'utf8')])),
    );
    const url = 'https://archive.org/download/his_girl_friday/his_girl_friday_512kb.mp4';
    expect(files['titles.yaml']).toContain(url);
    const edit = { 'titles.yaml': files['titles.yaml']!.replace(url, 'https://example.org/his-girl-friday.mp4') };
    const { answers, withPages, sooner, afterOut } = await twoBuilds(files, edit);
    expect(sooner).toEqual(withPages);
    const written = await readTree(afterOut);
    const titleFiles = [...written.keys()].filter((file) => /^(stream|subtitles)\/(movie|series)\//.test(file));
    expect([...answers!.keys()].sort()).toEqual(titleFiles.sort());
    for (const [file, body] of answers!) expect(body, file).toBe(written.get(file)!.toString());
    expect(answers!.get('stream/movie/tt0032599.json')).toContain('https://example.org/his-girl-friday.mp4');
  });

  it('are the files of an item added too, and the catalog pages wait for the rebuild', async () => {
    // Added to the second catalog alone, which offers the genre too: the catalog that lists it gives its link.
    const files = { 'addon.yaml': addon('  - { id: picks, type: movie, name: Picks, genres: [Comedy] }\n'), 'a.yaml': a, 'b.yaml': b };
    const added = { 'a.yaml': `${a}- { id: "t:0009", type: movie, name: Added, genres: [Comedy], catalogs: [picks] }\n` };
    const { answers, withPages, sooner, afterOut } = await twoBuilds(files, added);
    expect(sooner).toEqual(withPages);
    // The item files alone: the pages after it in the catalog sorted by name move.
    expect(withPages).toEqual(answers);
    const written = await readTree(afterOut);
    const ofA = [...written.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/t:/.test(file));
    expect([...answers!.keys()].sort()).toEqual(ofA.sort());
    for (const [file, body] of answers!) expect(body, file).toBe(written.get(file)!.toString());
    // Its genre link, as the catalog that lists it gives it.
    expect(answers!.get('meta/movie/t:0009.json')).toContain('/movie/picks?genre=Comedy');
    // With a genre no item had: the manifest offers it.
    const western = await twoBuilds(files, { 'a.yaml': `${a}- { id: "t:0009", type: movie, name: Added, genres: [Western] }\n` });
    expect(western.answers).toBeUndefined();
    expect(western.sooner).toBeUndefined();
  });

  it('are the files of an item removed too, each answered as removed, and the catalog pages wait for the rebuild', async () => {
    const before = { 'addon.yaml': addon(), 'a.yaml': a, 'b.yaml': b };
    const { answers, withPages, sooner, beforeOut, afterOut } = await twoBuilds(before, { 'a.yaml': a.slice(0, a.indexOf('- id: "t:0002"')) });
    expect(sooner).toEqual(withPages);
    expect(withPages).toEqual(answers);
    const [was, written] = [await readTree(beforeOut), await readTree(afterOut)];
    const ofA = (tree: Map<string, Buffer>) => [...tree.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/t:/.test(file)).sort();
    expect([...answers!.keys()].sort()).toEqual(ofA(was));
    const removed = ofA(was).filter((file) => !written.has(file));
    expect(removed).toEqual(['meta/movie/t:0002.json', 'stream/movie/t:0002.json']);
    for (const [file, body] of answers!) expect(body, file).toBe(removed.includes(file) ? null : written.get(file)!.toString());
    // The last item of a genre removed: the manifest no longer offers it, and every link to it goes.
    const western = movies(3, (i) => (i === 2 ? ['Western'] : ['Drama']));
    const genreGone = await twoBuilds({ ...before, 'a.yaml': western }, { 'a.yaml': western.slice(0, western.indexOf('- id: "t:0002"')) });
    expect(genreGone.answers).toBeUndefined();
    expect(genreGone.sooner).toBeUndefined();
  });

  it('place an item renamed into a tie after those read before it, with another of the tie removed in the same save', async () => {
    // Sorted by name, ties by the order read: t:0007, renamed into the tie, goes last. The one
    // removed, t:0003, is where the search for its place looks first.
    const ties = ['Tie', 'Tie', 'Tie', 'Tie', 'Tie', 'Tie', 'Tie', 'Zed'].map((name, i) => `- { id: "t:000${i}", type: movie, name: ${name} }\n`);
    const dir = await contentDir({ 'addon.yaml': addon(), 'a.yaml': ties.join('') });
    const checked: CheckedItems[] = [];
    const onItemsChecked = (items: CheckedItems) => void checked.push(items);
    const beforeOut = await tempDir();
    const before = await build({ contentDir: dir, outDir: beforeOut, onItemsChecked, keepPreviews: true });
    await writeFile(path.join(dir, 'a.yaml'), [...ties.slice(0, 3), ...ties.slice(4, 7), ties[7]!.replace('Zed', 'Tie')].join(''));
    const after = await build({ contentDir: dir, onItemsChecked });
    expect(before.ok && after.ok).toBe(true);
    const manifest = await readFile(path.join(beforeOut, 'manifest.json'), 'utf8');
    const built = { content: before.content!, manifest, settings: checked[0]!.settings, previews: before.previews };
    const content = provisionalContent(built, checked[1]!, new Set([path.join(dir, 'a.yaml')]));
    const ids = (c: Content) => c.catalogs[0]!.items.map((item) => item.id);
    expect(ids(after.content!)).toEqual(['t:0000', 't:0001', 't:0002', 't:0004', 't:0005', 't:0006', 't:0007']);
    expect(ids(content!)).toEqual(ids(after.content!));
  });

  it("are none for an item added with another item's id, before the checks across items find it", async () => {
    const dir = await contentDir({ 'addon.yaml': addon(), 'a.yaml': a, 'b.yaml': b });
    const checked: CheckedItems[] = [];
    const onItemsChecked = (items: CheckedItems) => void checked.push(items);
    const beforeOut = await tempDir();
    const before = await build({ contentDir: dir, outDir: beforeOut, onItemsChecked, keepPreviews: true });
    await writeFile(path.join(dir, 'a.yaml'), `${a}- { id: "u:0001", type: movie, name: Taken }\n`);
    const after = await build({ contentDir: dir, onItemsChecked });
    expect(after.diagnostics.map((d) => d.code)).toContain('duplicate-id');
    const manifest = await readFile(path.join(beforeOut, 'manifest.json'), 'utf8');
    const built = { content: before.content!, manifest, settings: checked[0]!.settings, previews: before.previews };
    expect(provisionalContent(built, checked[1]!, new Set([path.join(dir, 'a.yaml')]))).toBeUndefined();
  });

  it("are none for an edit that changes more than its items' files", async () => {
    const files = { 'addon.yaml': addon(), 'a.yaml': a, 'b.yaml': b };
    const refused = {
      // A genre no item had: the manifest offers it.
      'a new genre': { 'a.yaml': a.replace('genres: [Drama, Comedy]', 'genres: [Drama, Western]') },
      // Other settings: another cache time in every body.
      'addon.yaml': { 'addon.yaml': addon('cache: { maxAge: 60 }\n'), 'a.yaml': edited(a) },
    };
    for (const [what, edit] of Object.entries(refused)) {
      const { answers, sooner } = await twoBuilds(files, edit);
      expect(answers, what).toBeUndefined();
      expect(sooner, what).toBeUndefined();
    }
    const configurable = addon('config:\n  - { key: hd, type: checkbox, title: HD }\n');
    const { answers, sooner } = await twoBuilds({ ...files, 'addon.yaml': configurable }, { 'a.yaml': edited(a) });
    expect(answers).toBeUndefined();
    expect(sooner).toBeUndefined();
  });

  it('are, once the content is checked, also the catalog pages that changed, an item moved across them', async () => {
    // 250 movies sorted by name over three pages, and two genres: the renamed one moves from
    // the first page to the last, and every page between lists others.
    const many = movies(250, (i) => (i % 3 === 0 ? ['Drama', 'Comedy'] : ['Drama']));
    const files = {
      'addon.yaml': addon(),
      'a.yaml': many.slice(0, many.indexOf('- id: "t:0100"')),
      'b.yaml': many.slice(many.indexOf('- id: "t:0100"')),
    };
    // And one renamed in its place: Comedy's pages list the same ids, one of them edited (the
    // moved one is not a comedy). And one given the name of one read before it: equal names keep
    // the order they were read in.
    const renamed = {
      'a.yaml': files['a.yaml']
        .replace('name: Movie 4\n', 'name: Zebra\n')
        .replace('name: Movie 72\n', 'name: Movie 72b\n')
        .replace('name: Movie 9\n', 'name: Movie 7\n'),
    };
    const { answers, withPages, sooner, beforeOut, afterOut } = await twoBuilds(files, renamed);
    // The same from the files checked each on its own: the moved one placed again by name.
    expect(sooner).toEqual(withPages);
    const [before, after] = [await readTree(beforeOut), await readTree(afterOut)];
    const changedPages = [...after.keys()].filter((file) => file.startsWith('catalog/') && !after.get(file)!.equals(before.get(file)!));
    expect(changedPages.length).toBeGreaterThan(4);
    const pages = [...withPages!.keys()].filter((file) => file.startsWith('catalog/'));
    // Every page that changed, and the others it renders are the bytes they had.
    expect(pages).toEqual(expect.arrayContaining(changedPages));
    for (const [file, body] of withPages!) expect(body, file).toBe(after.get(file)!.toString());
    // Without pages: the item files alone.
    expect([...answers!.keys()].sort()).toEqual([...withPages!.keys()].filter((file) => !file.startsWith('catalog/')).sort());
    // Nor pages when a list's length changes, with the item files still answered.
    const fewer = { 'a.yaml': files['a.yaml'].replace('genres: [Drama, Comedy]', 'genres: [Drama]') };
    const shorter = (await twoBuilds(files, fewer)).withPages!;
    expect(shorter.size).toBeGreaterThan(0);
    expect([...shorter.keys()].filter((file) => file.startsWith('catalog/'))).toEqual([]);
  });

  it('are given the items checked each on its own before the checks across them, which wait for them', async () => {
    const events: string[] = [];
    const dir = await contentDir({ 'addon.yaml': addon(), 'a.yaml': a });
    const result = await build({
      contentDir: dir,
      onItemsChecked: ({ items }) => {
        events.push(`checked ${items.map((item) => item.id).join(' ')}`);
        return new Promise<void>((resolve) => setTimeout(() => resolve(void events.push('settled')), 100));
      },
      onChecked: () => void events.push('across'),
    });
    expect(result.ok).toBe(true);
    expect(events).toEqual(['checked t:0000 t:0001 t:0002', 'settled', 'across']);
    // Not when an item has an error: the build fails.
    events.length = 0;
    await writeFile(path.join(dir, 'a.yaml'), a.replace('type: movie', 'type: 7'));
    expect((await build({ contentDir: dir, onItemsChecked: () => void events.push('checked') })).ok).toBe(false);
    expect(events).toEqual([]);
  });

  it('are made before the checks across items only when what those decide is known to be as it was', async () => {
    // c.yaml's ids have the prefix of a.yaml's: the manifest's prefixes stay as they were without it.
    const files = { 'addon.yaml': addon(), 'a.yaml': a, 'b.yaml': b, 'c.yaml': movies(2, () => ['Drama']).replaceAll('t:000', 't:010') };
    // Each of these leaves the manifest and the paths as they were, so the checked content gives
    // the answers; the files checked on their own do not tell that they would.
    const later = {
      // The same genres in another order: the same genres on offer, the links in the new order.
      'genres reordered': { 'a.yaml': a.replace('genres: [Drama, Comedy]', 'genres: [Comedy, Drama]') },
      // A catalog named: in the same one as before, which a file alone does not tell.
      'a catalog named': { 'a.yaml': a.replace('name: Movie 1\n', 'name: Movie 1\n  catalogs: [all]\n') },
      // A file gone: the edited file's items are listed as before, with fewer beside them.
      'another file removed': { 'a.yaml': edited(a), 'c.yaml': null },
    };
    for (const [what, edit] of Object.entries(later)) {
      const { answers, sooner } = await twoBuilds(files, edit);
      expect(answers, what).toBeDefined();
      expect(sooner, what).toBeUndefined();
    }
  });
});
