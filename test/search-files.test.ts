// Search (issue 30) below the client: the ranking and the queries that get files, the files and
// manifest a build writes for each placement, catalog-placement errors at their line, and serve
// answering any query as the files would, on a real server on 127.0.0.1.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { startServer, type AddonServer } from '../src/serve/index.js';
import { searchRequest } from '../src/serve/route.js';
import { fileQueries, SearchIndex } from '../src/shared/search.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/search', import.meta.url));

describe('ranking', () => {
  const names = ['The Night', 'Night of the Night', 'Night', 'A Night in the City', 'Nuit', 'Amélie', 'AMELIE 2', 'Nightfall'];
  const index = new SearchIndex(names, (name) => name);

  it('finds names with every word of the query, case and accents aside, whole names first, then more query words, then catalog order', () => {
    expect(index.results('night')).toEqual(['Night', 'Night of the Night', 'The Night', 'A Night in the City']);
    expect(index.results('NIGHT')).toEqual(index.results('night'));
    expect(index.results('the night')).toEqual(['The Night', 'Night of the Night', 'A Night in the City']);
    expect(index.results('night the')).toEqual(['Night of the Night', 'The Night', 'A Night in the City']);
    expect(index.results('amelie')).toEqual(['Amélie', 'AMELIE 2']);
    expect(index.results('Amélie')).toEqual(['Amélie', 'AMELIE 2']);
    expect(index.results('  amélie!  ')).toEqual(['Amélie', 'AMELIE 2']);
  });

  it('matches whole words only, and nothing for a query without words', () => {
    expect(index.results('nigh')).toEqual([]);
    expect(index.results('night city paris')).toEqual([]);
    expect(index.results('')).toEqual([]);
    expect(index.results(' & ')).toEqual([]);
  });
});

describe('the queries a static host gets files for', () => {
  const queries = (name: string, which: 'all' | 'words' | 'names' = 'all') => {
    const set = new Set<string>();
    fileQueries(name, which, set);
    return [...set].sort();
  };

  it('each word and the whole name, as written, in lower case, and without accents', () => {
    expect(queries('Amélie')).toEqual(['Amelie', 'Amélie', 'amelie', 'amélie']);
    expect(queries("Ocean's Eleven")).toEqual(["Ocean's Eleven", 'Eleven', 'Ocean', "ocean's eleven", 'eleven', 'ocean', 's'].sort());
    expect(queries('Tom & Jerry', 'names')).toEqual(['Tom & Jerry', 'tom & jerry']);
    expect(queries('Tom & Jerry', 'words')).toEqual(['Jerry', 'Tom', 'jerry', 'tom']);
  });

  it('accents are the diacritics of Latin letters and the like, not the vowel signs of other scripts', () => {
    expect(queries('किताब')).toEqual(['किताब']);
    const index = new SearchIndex(['काल', 'किल', 'कल'], (name) => name);
    expect(index.results('कल')).toEqual(['कल']);
    expect(queries('Ça va')).toEqual(['Ca', 'Ca va', 'Ça', 'Ça va', 'ca', 'ca va', 'va', 'ça', 'ça va'].sort());
  });

  it('no query of no words, and none over 200 bytes: a title written without spaces is one word', () => {
    // A stray accent between words is no word; without it, the whole name keeps both spaces.
    expect(queries('Foo \u0301 bar')).toEqual(['Foo \u0301 bar', 'Foo  bar', 'bar', 'foo \u0301 bar', 'foo  bar', 'Foo', 'foo'].sort());
    expect(queries('あ'.repeat(90))).toEqual([]);
    // Words of 180 and 30 bytes get files; the whole name, 211 bytes, does not.
    expect(queries(`${'あ'.repeat(60)} ${'x'.repeat(30)}`)).toEqual([`${'あ'.repeat(60)}`, 'x'.repeat(30)].sort());
  });

  it('no whole name that cannot end a file name on every host', () => {
    expect(queries('AC/DC Live')).toEqual(['AC', 'DC', 'Live', 'ac', 'dc', 'live']);
    expect(queries('100% Wolf')).toEqual(['100', 'Wolf', 'wolf']);
    expect(queries('Why?')).toEqual(['Why', 'why']);
  });
});

describe('the files and the manifest of each placement', () => {
  it('writes the pages the client asks for, and nothing for requests it never makes', async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: FIXTURE, outDir: out, baseUrl: 'https://example.org/', hosts: ['github-pages'] });
    expect(result.diagnostics).toEqual([]);
    const files = [...(await readTree(out)).keys()];
    const of = (catalog: string) =>
      files
        .filter((f) => f.startsWith(`catalog/${catalog}`))
        .map((f) => f.slice(`catalog/${catalog}`.length))
        .sort();
    // Off the Board: the required filter's options, All first; no page without a genre.
    expect(of('movie/shelf')).toEqual(['/genre=All&skip=4.json', '/genre=All.json', '/skip=4&genre=All.json']);
    expect(of('movie/archive')).toContain('/genre=Drama&skip=3.json');
    expect(of('movie/archive')).not.toContain('.json');
    // Search only: the series' words and names, no page without a query.
    expect(of('series/finder')).toEqual(
      ['Holmes', 'Sherlock Holmes', 'Sherlock', 'Superman', 'holmes', 'sherlock holmes', 'sherlock', 'superman']
        .flatMap((q) => [`/search=${q}.json`, `/search=${q}&skip=1.json`, `/skip=1&search=${q}.json`])
        .sort(),
    );
    // Searched and on the Board: the plain pages, the genres and the queries.
    const films = of('movie/films');
    expect(films).toEqual(
      expect.arrayContaining(['.json', '/skip=4.json', '/genre=Comedy.json', "/search=Ocean's Eleven.json", "/search=ocean's eleven.json"]),
    );
    expect(films).toEqual(expect.arrayContaining(['/search=Amelie.json', '/search=amelie.json', '/search=Amélie.json', '/search=amélie.json']));
    expect(films).not.toContain('/search=AMELIE.json');
    const page = JSON.parse(await readFile(path.join(out, 'catalog/movie/films/search=movie.json'), 'utf8'));
    expect(page.metas.map((m: { id: string }) => m.id)).toEqual(['pd:movie-movie', 'pd:tom-jerry']);

    const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.catalogs.map((c: { id: string; extra: unknown }) => [c.id, c.extra])).toEqual([
      [
        'films',
        [
          { name: 'genre', isRequired: false, options: ['Comedy', 'Drama'] },
          { name: 'search', isRequired: false },
          { name: 'skip', isRequired: false },
        ],
      ],
      [
        'archive',
        [
          { name: 'genre', isRequired: true, options: ['All', 'Comedy', 'Drama'] },
          { name: 'skip', isRequired: false },
        ],
      ],
      [
        'shelf',
        [
          { name: 'genre', isRequired: true, options: ['All'] },
          { name: 'skip', isRequired: false },
        ],
      ],
      [
        'reels',
        [
          { name: 'search', isRequired: true },
          { name: 'skip', isRequired: false },
        ],
      ],
      [
        'finder',
        [
          { name: 'search', isRequired: true },
          { name: 'skip', isRequired: false },
        ],
      ],
    ]);
  });

  it('searchQueries: names writes no word of a name, and words no whole name', async () => {
    const items = `- { id: "t:1", type: movie, name: Night Train, streams: [{ url: "https://example.org/1.mp4" }] }\n`;
    for (const [which, expected] of [
      ['names', ['Night Train', 'night train']],
      ['words', ['Night', 'Train', 'night', 'train']],
    ] as const) {
      const dir = await contentDir({
        'addon.yaml': addonYaml(`catalogs:\n  - { id: top, type: movie, name: Top, search: only, searchQueries: ${which} }\n`),
        'items.yaml': items,
      });
      const out = path.join(await tempDir(), 'dist');
      const result = await build({ contentDir: dir, outDir: out, hosts: ['github-pages'] });
      expect(result.diagnostics).toEqual([]);
      const firstPages = [...(await readTree(out)).keys()].filter((f) => /^catalog\/movie\/top\/search=[^&]*\.json$/.test(f));
      expect(firstPages.map((f) => f.slice('catalog/movie/top/search='.length, -'.json'.length)).sort()).toEqual(expected);
    }
  });
});

describe('letter case', () => {
  const item = (name: string) => `- { id: "t:1", type: movie, name: ${name}, streams: [{ url: "https://example.org/1.mp4" }] }\n`;

  it('two catalogs whose ids differ only in case are a case-conflict, their search files too', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(
        'catalogs:\n  - { id: films, type: movie, name: A, search: only }\n  - { id: Films, type: movie, name: B, search: only }\n',
      ),
      'items.yaml': item('Alien'),
    });
    const result = await build({ contentDir: dir, outDir: path.join(await tempDir(), 'dist'), hosts: [] });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('case-conflict');
  });

  it('a rebuild after a name changes case removes the old spelling on a file system that keeps case apart', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films, search: only, searchQueries: names }\n'),
      'items.yaml': item('Star wars'),
    });
    const out = path.join(await tempDir(), 'dist');
    expect((await build({ contentDir: dir, outDir: out, hosts: [] })).ok).toBe(true);
    await writeFile(path.join(dir, 'items.yaml'), item('Star Wars'));
    expect((await build({ contentDir: dir, outDir: out, hosts: [] })).ok).toBe(true);
    const pages = [...(await readTree(out)).keys()].filter((f) => /^catalog\/movie\/films\/search=[^&]*\.json$/.test(f)).sort();
    expect(pages).toEqual(['catalog/movie/films/search=Star Wars.json', 'catalog/movie/films/search=star wars.json']);
  });
});

describe('catalog-placement', () => {
  // Each at the value of its field, in line 6 (the catalog's line after addonYaml's four and `catalogs:`).
  const cases: [catalog: string, field: string, column: number, words: string][] = [
    ['{ id: a, type: movie, name: A, board: false, search: true }', 'search', 58, 'search: true and board: false'],
    ['{ id: a, type: movie, name: A, board: false, search: only }', 'board', 43, 'search: only'],
    ['{ id: a, type: movie, name: A, genres: [Drama], search: only }', 'genres', 44, 'search: only and genres'],
    ['{ id: a, type: movie, name: A, searchQueries: words }', 'searchQueries', 51, 'searchQueries but not search'],
    ['{ id: a, type: movie, name: A, genres: [Drama, all], board: false }', 'genres', 44, 'would be a second "All"'],
  ];
  for (const [catalog, field, column, words] of cases) {
    it(`${field}: ${catalog}`, async () => {
      const dir = await contentDir({
        'addon.yaml': addonYaml(`catalogs:\n  - ${catalog}\n`),
        'items.yaml': '- { id: "t:1", type: movie, name: Night, genres: [Drama], streams: [{ url: "https://example.org/1.mp4" }] }\n',
      });
      const out = path.join(await tempDir(), 'dist');
      const result = await build({ contentDir: dir, outDir: out });
      expect(result.ok).toBe(false);
      const placement = result.diagnostics.filter((d) => d.code === 'catalog-placement');
      expect(placement).toHaveLength(1);
      expect(placement[0]).toMatchObject({ severity: 'error', file: path.join(dir, 'addon.yaml'), line: 6, column, path: `catalogs[0].${field}` });
      expect(placement[0]!.message).toContain(words);
      expect(await stat(out).catch(() => undefined)).toBeUndefined();
    });
  }
});

describe('serve answers any query as the files would', () => {
  let server: AddonServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('the same bytes for the queries that have files, the same ranking for any other, marked as computed', async () => {
    server = await startServer({ contentDir: FIXTURE, port: 0 });
    const built = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: FIXTURE, outDir: built, baseUrl: server.baseUrl, hosts: [] });
    expect(result.ok).toBe(true);
    for (const file of [
      'catalog/movie/films/search=movie.json',
      "catalog/movie/films/search=Ocean's Eleven.json",
      'catalog/movie/reels/skip=100&search=reel.json',
    ]) {
      const response = await fetch(server.url + file.split('/').map(encodeURIComponent).join('/').replace('%26', '&').replace('%3D', '='));
      expect(response.status, file).toBe(200);
      expect(response.headers.get('x-addon-gen-search'), file).toBeNull();
      expect(await response.text(), file).toBe(await readFile(path.join(built, file), 'utf8'));
    }
    const ids = async (rawPath: string) => {
      const response = await fetch(server!.url + rawPath);
      expect(response.status, rawPath).toBe(200);
      expect(response.headers.get('x-addon-gen-search'), rawPath).toMatch(/^computed/);
      expect(response.headers.get('content-type'), rawPath).toBe('application/json; charset=utf-8');
      return ((await response.json()) as { metas: { id: string }[] }).metas.map((m) => m.id);
    };
    expect(await ids('catalog/movie/films/search=jerry%20tom.json')).toEqual(['pd:tom-jerry']);
    expect(await ids('catalog/movie/films/search=MOVIE.json')).toEqual(['pd:movie-movie', 'pd:tom-jerry']);
    expect(await ids('catalog/movie/films/skip=1&search=MOVIE.json')).toEqual(['pd:tom-jerry']);
    expect(await ids('catalog/movie/films/search=MOVIE&skip=2.json')).toEqual([]);
    expect(await ids('catalog/movie/films/search=a%26b%3Dc.json')).toEqual([]);
    expect(await ids('catalog/movie/reels/search=REEL&skip=125.json')).toEqual([
      'pd:reel-126',
      'pd:reel-127',
      'pd:reel-128',
      'pd:reel-129',
      'pd:reel-130',
    ]);
    expect(await ids('catalog/series/finder/search=SUPERMAN.json')).toEqual(['pd:superman']);
    // A query with `/` is no file name, but a query all the same.
    expect(await ids('catalog/movie/films/search=movie%2Fjerry.json')).toEqual(['pd:tom-jerry']);
    // A catalog without search, and requests with other extras, are files or 404s as on a host.
    for (const rawPath of [
      'catalog/movie/archive/search=night.json',
      'catalog/movie/films/genre=Drama&search=night.json',
      'catalog/movie/nope/search=night.json',
    ]) {
      expect((await fetch(server.url + rawPath)).status, rawPath).toBe(404);
    }
  });

  it('with --dir, only the files: a static host has no answer for other queries', async () => {
    const built = path.join(await tempDir(), 'dist');
    expect((await build({ contentDir: FIXTURE, outDir: built, hosts: [] })).ok).toBe(true);
    server = await startServer({ dir: built, port: 0 });
    expect((await fetch(`${server.url}catalog/movie/films/search=movie.json`)).status).toBe(200);
    expect((await fetch(`${server.url}catalog/movie/films/search=jerry%20tom.json`)).status).toBe(404);
  });

  it('in each configuration of a configurable addon, from what it keeps', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(
        'config:\n  - { key: lang, type: select, title: Language, options: [en, fr] }\ncatalogs:\n  - { id: films, type: movie, name: Films, search: only }\n',
      ),
      'items.yaml': [
        '- { id: "t:1", type: movie, name: Night Train, when: { lang: en }, streams: [{ url: "https://example.org/1.mp4" }] }',
        '- { id: "t:2", type: movie, name: Train de nuit, when: { lang: fr }, streams: [{ url: "https://example.org/2.mp4" }] }',
        '',
      ].join('\n'),
    });
    server = await startServer({ contentDir: dir, port: 0 });
    const ids = async (rawPath: string) =>
      ((await (await fetch(server!.url + rawPath)).json()) as { metas: { id: string }[] }).metas.map((m) => m.id);
    expect(await ids('catalog/movie/films/search=train.json')).toEqual(['t:1']);
    expect(await ids('lang=en/catalog/movie/films/search=TRAIN.json')).toEqual(['t:1']);
    expect(await ids('lang=fr/catalog/movie/films/search=TRAIN.json')).toEqual(['t:2']);
    expect((await fetch(`${server.url}lang=de/catalog/movie/films/search=TRAIN.json`)).status).toBe(404);
  });
});

describe('searchRequest', () => {
  it('reads the query from the encoded path, after the base path and a configuration folder', () => {
    expect(searchRequest('/catalog/movie/top/search=tom%20%26%20jerry.json')).toEqual({
      folder: '',
      type: 'movie',
      id: 'top',
      query: 'tom & jerry',
      skip: 0,
    });
    expect(searchRequest('/repo/catalog/movie/top/skip=100&search=a.json', '/repo/')).toMatchObject({ query: 'a', skip: 100 });
    expect(searchRequest('/catalog/movie/top/search=a&skip=200.json?x=1')).toMatchObject({ query: 'a', skip: 200 });
    expect(searchRequest('/lang=fr/catalog/movie/top/search=a.json', '/', true)).toMatchObject({ folder: 'lang=fr', query: 'a' });
    for (const raw of [
      '/catalog/movie/top.json',
      '/catalog/movie/top/genre=a.json',
      '/catalog/movie/top/search=a&genre=b.json',
      '/catalog/movie/top/search=a&search=b.json',
      '/catalog/movie/top/search=a&skip=x.json',
      '/catalog/movie/top/search=%E0.json',
      '/meta/movie/top/search=a.json',
      '/lang=fr/catalog/movie/top/search=a.json',
      '/catalog/movie/%2e%2e/search=a.json',
    ]) {
      expect(searchRequest(raw), raw).toBeUndefined();
    }
  });
});

describe('names that share their words', () => {
  it('are refused as output-too-large, naming the search queries, and nothing is written', async () => {
    // 4,000 names of the same eight words in different orders: each whole name finds every item,
    // 16 million results from 200 KB of YAML.
    const words = ['red', 'blue', 'green', 'gold', 'grey', 'pink', 'teal', 'jade'];
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) {
      // The i-th permutation of the words (factorial number system): every name is different.
      const left = [...words];
      const order: string[] = [];
      for (let rest = i, base = 8; base > 0; rest = Math.floor(rest / base), base--) order.push(left.splice(rest % base, 1)[0]!);
      lines.push(`- { id: "h:${i}", type: movie, name: "${order.join(' ')}" }`);
    }
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All, search: only, searchQueries: names }\n'),
      'items.yaml': `${lines.join('\n')}\n`,
    });
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ contentDir: dir, outDir: out, hosts: [] });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['output-too-large']);
    expect(result.diagnostics[0]!.message).toContain('search queries');
    expect(await stat(out).catch(() => undefined)).toBeUndefined();
  }, 60_000);
});
