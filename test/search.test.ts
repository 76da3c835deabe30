// Where catalogs show, and search (issue 30), in the real client core: test/fixtures/search built
// and served by nginx set up like GitHub Pages under a sub-path and by the Cloudflare Pages
// runtime. Films is on the Board and searched; Archive (genres) and Shelf (none) are off the
// Board, in Discover behind a required genre filter that opens on All; Reels (130 items) and
// Series search are for search alone. What the Board, Discover and Search show is compared with
// expectations written here by hand from the fixture.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { walkAddon } from './support/client-walk.js';
import { tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { BROWSER_ORIGIN, startCore, type Core, type Json } from './support/stremio-core.js';
import { freePort, startPagesDev } from './support/wrangler.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/search', import.meta.url));

const AMELIE = 'pd:amelie';
const TOM_JERRY = 'pd:tom-jerry';
const MOVIE_MOVIE = 'pd:movie-movie';
const OCEANS = 'pd:oceans';
const FILMS = [AMELIE, TOM_JERRY, MOVIE_MOVIE, OCEANS];
const REELS = Array.from({ length: 130 }, (_, i) => `pd:reel-${i + 1}`);

/**
 * What Search shows for a query: per catalog that the client asks (those with search), the ids
 * of its first page, or 'none' when the host has no file for the query (a 404, an error row).
 */
const SEARCHES: [query: string, rows: Record<string, string[] | 'none'>][] = [
  // Two words of The Movie Movie before one of Tom & Jerry's.
  ['movie', { Films: [MOVIE_MOVIE, TOM_JERRY], Reels: 'none', 'Series search': 'none' }],
  ['Movie', { Films: [MOVIE_MOVIE, TOM_JERRY], Reels: 'none', 'Series search': 'none' }],
  ['the', { Films: [TOM_JERRY, MOVIE_MOVIE], Reels: 'none', 'Series search': 'none' }],
  ['Amélie', { Films: [AMELIE], Reels: 'none', 'Series search': 'none' }],
  ['amélie', { Films: [AMELIE], Reels: 'none', 'Series search': 'none' }],
  ['amelie', { Films: [AMELIE], Reels: 'none', 'Series search': 'none' }],
  ['Amelie', { Films: [AMELIE], Reels: 'none', 'Series search': 'none' }],
  ['Tom & Jerry: The Movie', { Films: [TOM_JERRY], Reels: 'none', 'Series search': 'none' }],
  ['tom & jerry: the movie', { Films: [TOM_JERRY], Reels: 'none', 'Series search': 'none' }],
  ["Ocean's Eleven", { Films: [OCEANS], Reels: 'none', 'Series search': 'none' }],
  ['ocean', { Films: [OCEANS], Reels: 'none', 'Series search': 'none' }],
  ['superman', { Films: 'none', Reels: 'none', 'Series search': ['pd:superman'] }],
  ['Sherlock Holmes', { Films: 'none', Reels: 'none', 'Series search': ['pd:sherlock'] }],
  // A row shows the first 10 of the first page (the web serializer's cut, as on the Board).
  ['reel', { Films: 'none', Reels: REELS.slice(0, 10), 'Series search': 'none' }],
  ['Reel 7', { Films: 'none', Reels: ['pd:reel-7'], 'Series search': 'none' }],
  // No file: a static host answers 404 for what people type beyond words and whole names.
  ['AMELIE', { Films: 'none', Reels: 'none', 'Series search': 'none' }],
  ['jerry tom', { Films: 'none', Reels: 'none', 'Series search': 'none' }],
];

async function buildFor(baseUrl: string, host: Host): Promise<string> {
  const out = path.join(await tempDir('addon-gen-search-'), 'dist');
  const result = await build({ contentDir: FIXTURE, outDir: out, baseUrl, hosts: [host] });
  expect(result.diagnostics).toEqual([]);
  expect(result.ok).toBe(true);
  return out;
}

/** Search as Stremio Web runs it: every catalog that takes the query alone, first pages. */
async function search(core: Core, query: string): Promise<Record<string, string[] | 'none'>> {
  core.dispatch({ action: 'Load', args: { model: 'CatalogsWithExtra', args: { extra: [['search', query]] } } }, 'search');
  await core.settle();
  core.dispatch({ action: 'CatalogsWithExtra', args: { action: 'LoadRange', args: { start: 0, end: 100 } } }, 'search');
  await core.settle();
  const rows: Record<string, string[] | 'none'> = {};
  for (const row of core.state('search').catalogs as Json[]) {
    const content = row.content;
    if (content?.type === 'Ready') rows[row.name] = content.content.map((item: Json) => item.id as string);
    else if (content?.type === 'Err' && /404/.test(String(content.content))) rows[row.name] = 'none';
    else rows[row.name] = [`unexpected: ${JSON.stringify(content)}`];
  }
  return rows;
}

async function checkPlacement(manifestUrl: string, label: string): Promise<void> {
  const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
  try {
    // The whole walk: every catalog the Board and Discover show, every option, every item.
    const walk = await walkAddon(core, manifestUrl, {
      items: [...REELS.map((id) => ({ type: 'movie', id })), { type: 'series', id: 'pd:superman' }, { type: 'series', id: 'pd:sherlock' }],
    });
    expect(walk.failures, label).toEqual([]);
    expect(walk.counts.metas, label).toBe(FILMS.length + REELS.length + 2);

    // The Board: Films alone.
    const board = await core.board();
    expect(
      board.map((row) => [row.name, row.ids]),
      label,
    ).toEqual([['Films', FILMS]]);

    // Discover, opened without a choice: movies only (the series catalog is for search), the
    // catalogs off the Board listed, Films first and loaded.
    core.dispatch({ action: 'Load', args: { model: 'CatalogWithFilters', args: null } }, 'discover');
    await core.settle();
    const discover = core.state('discover');
    expect(
      discover.selectable.types.map((t: Json) => t.type),
      label,
    ).toEqual(['movie']);
    expect(
      discover.selectable.catalogs.map((c: Json) => c.name),
      label,
    ).toEqual(['Films', 'Archive', 'Shelf']);
    expect(
      discover.catalog.content.content.map((item: Json) => item.id),
      label,
    ).toEqual(FILMS);

    // Archive and Shelf open on All, which lists every film; Archive's genres filter it, with
    // no "None" option (the filter is required).
    const request = (id: string, extra: [string, string][]) => ({ base: manifestUrl, path: { resource: 'catalog', type: 'movie', id, extra } });
    for (const id of ['archive', 'shelf']) {
      const catalog = discover.selectable.catalogs.find((c: Json) => c.id === id);
      expect(catalog.deepLinks.discover, `${label} ${id}`).toMatch(/\?genre=All$/);
      const all = await core.discover(request(id, [['genre', 'All']]));
      expect(all.ids, `${label} ${id}`).toEqual(FILMS);
      expect(all.endError, `${label} ${id}`).toBeNull();
    }
    const drama = await core.discover(request('archive', [['genre', 'Drama']]));
    expect(drama.ids, label).toEqual([TOM_JERRY, MOVIE_MOVIE, OCEANS]);
    const genre = drama.selectable.extra.find((e: Json) => e.name === 'genre');
    expect(
      genre.options.map((o: Json) => [o.value, o.selected]),
      label,
    ).toEqual([
      ['All', false],
      ['Comedy', false],
      ['Drama', true],
    ]);

    // Search: the rows and their first pages.
    for (const [query, rows] of SEARCHES) expect(await search(core, query), `${label} search "${query}"`).toEqual(rows);
    // The query as the client sends it, percent-encoded, answered from the decoded file.
    const asked = core.fetches.filter((f) => f.url.includes('/films/search=Tom%20%26%20Jerry%3A%20The%20Movie.json'));
    expect(
      asked.map((f) => f.status),
      label,
    ).toEqual([200]);

    // Every page of a search, as "See all" opens it in Discover: 130 reels, then the empty page.
    const reels = await core.discover(request('reels', [['search', 'reel']]));
    expect(reels.ids, label).toEqual(REELS);
    expect(reels.endError, label).toBeNull();
    expect(reels.requests.map((r) => r.replace(/^.*\/reels\//, '')).sort(), label).toEqual(
      ['search=reel.json', 'skip=100&search=reel.json', 'skip=130&search=reel.json'].sort(),
    );
  } finally {
    await core.stop();
  }
}

describe('where catalogs show, and search, in the real client core', () => {
  it('on nginx set up like GitHub Pages, under a sub-path', async () => {
    const port = await freePort();
    const out = await buildFor(`http://127.0.0.1:${port}/repo/`, 'github-pages');
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      await checkPlacement(`${nginx.url}manifest.json`, 'nginx');
    } finally {
      await nginx.close();
    }
  }, 180_000);

  it('on the Cloudflare Pages runtime (wrangler pages dev)', async () => {
    const port = await freePort();
    const out = await buildFor(`http://127.0.0.1:${port}/`, 'cloudflare');
    const pages = await startPagesDev(out, { port });
    try {
      await checkPlacement(`${pages.url}manifest.json`, 'wrangler');
    } finally {
      await pages.close();
    }
  }, 180_000);
});
