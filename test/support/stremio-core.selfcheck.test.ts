// Self-check of the test harness: a hand-written static addon, served by the plain static
// server, walked by the real Stremio core. It documents what the client requests and how it
// reacts to a broken addon, so the generator's tests can rely on both support files.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type StaticServer } from './static-server.js';
import { ready, startCore, type Core, type Json } from './stremio-core.js';

const PREFIX = '/repo/';
const movieId = (n: number): string => `ex:m${String(n).padStart(3, '0')}`;
const MOVIES = Array.from({ length: 150 }, (_, i) => i + 1);
// 120 dramas: enough for a second genre page.
const DRAMAS = MOVIES.filter((n) => n % 5 !== 0);

let root: string;
let server: StaticServer;
let core: Core;
let manifestUrl: string;

async function put(rel: string, body: unknown): Promise<void> {
  const file = path.join(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(body));
}

const preview = (n: number): Json => ({
  id: movieId(n),
  type: 'movie',
  name: `Movie ${n}`,
  poster: `https://example.com/p/${n}.jpg`,
  genres: DRAMAS.includes(n) ? ['Drama'] : ['Comedy'],
});

async function writeAddon(): Promise<void> {
  await put('manifest.json', {
    id: 'org.example.selfcheck',
    version: '1.0.0',
    name: 'Self-check',
    description: 'Hand-made static addon',
    types: ['movie', 'series'],
    resources: [
      'catalog',
      { name: 'meta', types: ['movie', 'series'], idPrefixes: ['ex:'] },
      { name: 'stream', types: ['movie', 'series'], idPrefixes: ['ex:'] },
      { name: 'subtitles', types: ['movie', 'series'], idPrefixes: ['ex:'] },
    ],
    catalogs: [
      { type: 'movie', id: 'x', name: 'Movies', extra: [{ name: 'genre', options: ['Drama', 'Comedy'] }, { name: 'skip' }] },
      { type: 'movie', id: 'broken', name: 'Broken', extra: [{ name: 'skip' }] },
      { type: 'series', id: 's', name: 'Series' },
      { type: 'movie', id: 'gone', name: 'No files at all' },
    ],
  });

  // Plain catalog: pages of 100 and an empty end page.
  await put('catalog/movie/x.json', { metas: MOVIES.slice(0, 100).map(preview) });
  await put('catalog/movie/x/skip=100.json', { metas: MOVIES.slice(100).map(preview) });
  await put('catalog/movie/x/skip=150.json', { metas: [] });
  // Genre pages, both extra orders.
  const g = DRAMAS.map(preview);
  await put('catalog/movie/x/genre=Drama.json', { metas: g.slice(0, 100) });
  for (const name of ['skip=100&genre=Drama', 'genre=Drama&skip=100']) {
    await put(`catalog/movie/x/${name}.json`, { metas: g.slice(100) });
  }
  for (const name of [`skip=${g.length}&genre=Drama`, `genre=Drama&skip=${g.length}`]) {
    await put(`catalog/movie/x/${name}.json`, { metas: [] });
  }

  // Broken catalog: one item with a relative poster, and no second page at all.
  await put('catalog/movie/broken.json', {
    metas: MOVIES.slice(0, 100).map((n) => (n === 7 ? { ...preview(n), poster: 'p/7.jpg' } : preview(n))),
  });

  await put('catalog/series/s.json', {
    metas: [{ id: 'ex:s1', type: 'series', name: 'Show', poster: 'https://example.com/s1.jpg' }],
  });

  await put(`meta/movie/${movieId(1)}.json`, {
    meta: {
      ...preview(1),
      description: 'First movie',
      released: '1968-10-01T00:00:00.000Z',
      releaseInfo: '1968',
      links: [{ name: 'Drama', category: 'Genres', url: 'stremio:///discover/x' }],
    },
  });
  await put('meta/movie/ex:bad.json', { meta: { ...preview(2), id: 'ex:bad', poster: 'img/bad.jpg' } });
  await put(`stream/movie/${movieId(1)}.json`, {
    streams: [
      { url: 'https://example.com/v/1.mp4', name: 'Self-check', description: '1080p' },
      { url: 'relative/2.mp4', name: 'Invalid: relative url' },
      { infoHash: 'xyz', name: 'Invalid: bad infoHash' },
    ],
  });

  await put('meta/series/ex:s1.json', {
    meta: {
      id: 'ex:s1',
      type: 'series',
      name: 'Show',
      poster: 'https://example.com/s1.jpg',
      videos: [
        { id: 'ex:s1:1:2', title: 'Two', season: 1, episode: 2, released: '2020-01-08T00:00:00.000Z' },
        { id: 'ex:s1:1:1', title: 'One', season: 1, episode: 1, released: '2020-01-01T00:00:00.000Z' },
      ],
    },
  });
  await put('stream/series/ex:s1:1:2.json', {
    streams: [
      {
        url: 'https://example.com/v/s1e2.mp4',
        name: 'Self-check',
        behaviorHints: { filename: 'Show S01E02.mp4', videoSize: 123456 },
        subtitles: [{ id: 'en1', lang: 'eng', url: 'https://example.com/s/s1e2.en.vtt' }],
      },
      { url: 'https://example.com/v/s1e2-plain.mp4', name: 'No hints' },
    ],
  });
  await put('subtitles/series/ex:s1:1:2.json', {
    subtitles: [{ id: 'fr1', lang: 'fre', url: 'https://example.com/s/s1e2.fr.vtt' }],
  });
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'addon-gen-selfcheck-'));
  await writeAddon();
  server = await startStaticServer(root, { prefix: PREFIX });
  manifestUrl = `${server.url}manifest.json`;
  core = await startCore();
});

afterAll(async () => {
  await core?.stop();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Requests the server received since `from`, without the prefix. */
const since = (from: number): string[] => server.requests.slice(from).map((r) => r.slice(PREFIX.length - 1));

describe('static server', () => {
  it('serves decoded paths, refuses escapes and malformed escapes', async () => {
    const get = (p: string) => fetch(`http://127.0.0.1:${server.port}${p}`);
    const ok = await get('/repo/stream/series/ex%3As1%3A1%3A2.json');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('cache-control')).toBeNull();
    expect((await get('/repo/%E0%A4%A.json')).status).toBe(400);
    expect((await get('/repo/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
    expect((await get('/repo/../repo/manifest.json')).status).toBe(200); // `..` stays inside root
    expect((await get('/manifest.json')).status).toBe(404); // outside the prefix
    expect((await get('/repo/missing.json')).status).toBe(404);
  });
});

describe('stremio core harness', () => {
  it('starts with no addons and installs the test addon', async () => {
    expect(core.installedAddons()).toEqual([]);
    const from = server.requests.length;
    const descriptor = await core.installAddon(manifestUrl);
    expect(descriptor.transportUrl).toBe(manifestUrl);
    expect(descriptor.manifest.id).toBe('org.example.selfcheck');
    expect(core.installedAddons()).toEqual([manifestUrl]);
    expect(since(from)).toContain('/manifest.json');
    await expect(core.installAddon(`${server.url}nope/manifest.json`)).rejects.toThrow(/addon details/);
  });

  it('shows the catalogs on the board', async () => {
    const board = await core.board();
    const byId = Object.fromEntries(board.map((c) => [c.id, c]));
    expect(board.map((c) => `${c.type}/${c.id}`)).toEqual(['movie/x', 'movie/broken', 'series/s', 'movie/gone']);
    expect(byId.gone?.error).toBe('Env: Failed to fetch: Unexpected HTTP status code 404');
    expect(byId.x?.error).toBeNull();
    expect(byId.x?.ids).toHaveLength(10); // the web serializer previews 10 per row
    expect(byId.x?.ids[0]).toBe(movieId(1));
    expect(byId.s?.ids).toEqual(['ex:s1']);
  });

  it('pages through a catalog without and with a genre', async () => {
    const base = manifestUrl;
    const all = await core.discover({ base, path: { resource: 'catalog', type: 'movie', id: 'x', extra: [] } });
    expect(all.error).toBeNull();
    expect(all.endError).toBeNull();
    expect(all.ids).toEqual(MOVIES.map(movieId));
    expect(all.requests).toEqual(['/repo/catalog/movie/x.json', '/repo/catalog/movie/x/skip=100.json', '/repo/catalog/movie/x/skip=150.json']);
    expect(all.end).toEqual({ path: '/repo/catalog/movie/x/skip=150.json', status: 200, error: null });

    const drama = await core.discover({
      base,
      path: { resource: 'catalog', type: 'movie', id: 'x', extra: [['genre', 'Drama']] },
    });
    expect(drama.error).toBeNull();
    expect(drama.endError).toBeNull();
    expect(drama.ids).toEqual(DRAMAS.map(movieId));
    // The core puts the most recently set extra (skip) first.
    expect(drama.requests).toEqual([
      '/repo/catalog/movie/x/genre=Drama.json',
      '/repo/catalog/movie/x/skip=100&genre=Drama.json',
      '/repo/catalog/movie/x/skip=120&genre=Drama.json',
    ]);
    const genre = (drama.selectable.extra as Json[]).find((e) => e.name === 'genre');
    expect((genre.options as Json[]).map((o) => o.value)).toEqual([null, 'Drama', 'Comedy']);
  });

  it('reports a dropped item and a missing page', async () => {
    const broken = await core.discover({
      base: manifestUrl,
      path: { resource: 'catalog', type: 'movie', id: 'broken', extra: [] },
    });
    expect(broken.error).toBeNull();
    expect(broken.ids).toHaveLength(99); // the relative poster dropped item 7 silently
    expect(broken.ids).not.toContain(movieId(7));
    expect(broken.requests).toEqual(['/repo/catalog/movie/broken.json', '/repo/catalog/movie/broken/skip=99.json']);
    expect(broken.endError).toBe('HTTP 404');

    const gone = await core.discover({ base: manifestUrl, path: { resource: 'catalog', type: 'movie', id: 'gone', extra: [] } });
    expect(gone.error).toBe('Env: Failed to fetch: Unexpected HTTP status code 404');
    expect(gone.ids).toEqual([]);
  });

  it('loads a movie, its streams, and fails a meta with a relative poster', async () => {
    const movie = await core.metaDetails('movie', movieId(1));
    const meta = ready(movie.meta?.content, 'meta');
    expect(meta.id).toBe(movieId(1));
    expect(meta.released).toBe('1968-10-01T00:00:00Z'); // re-serialized by the core
    expect(movie.streamPath).toMatchObject({ resource: 'stream', type: 'movie', id: movieId(1) });
    expect(movie.streams).toHaveLength(1);
    const streams = ready(movie.streams[0]?.content, 'streams');
    expect(streams.map((s) => s.url)).toEqual(['https://example.com/v/1.mp4']); // invalid ones dropped

    const bad = await core.metaDetails('movie', 'ex:bad');
    // A parse failure is reported like a network failure.
    expect(bad.meta?.content).toEqual({
      type: 'Err',
      content: { type: 'Env', content: { code: 1, message: 'Failed to fetch: relative URL without a base' } },
    });
    expect(() => ready(bad.meta?.content)).toThrow(/relative URL/);
  });

  it('loads a series video and its streams, then the player asks for subtitles', async () => {
    const from = server.requests.length;
    const show = await core.metaDetails('series', 'ex:s1', 'ex:s1:1:2');
    const meta = ready(show.meta?.content, 'meta');
    expect((meta.videos as Json[]).map((v) => v.id)).toEqual(['ex:s1:1:1', 'ex:s1:1:2']);
    const streams = ready(show.streams[0]?.content, 'streams');
    expect(streams).toHaveLength(2);
    expect(since(from)).toEqual(['/meta/series/ex%3As1.json', '/stream/series/ex%3As1%3A1%3A2.json']);

    const target = { transportUrl: manifestUrl, type: 'series', id: 'ex:s1', videoId: 'ex:s1:1:2' };
    // The core builds the subtitles extras from the stream's behaviorHints, most recently set
    // first, so the plain file is missed.
    const player = await core.player(streams[0], target);
    expect(player.subtitlesFetches.map((f) => [new URL(f.url).pathname, f.status])).toEqual([
      ['/repo/subtitles/series/ex%3As1%3A1%3A2/filename=Show%20S01E02.mp4&videoSize=123456.json', 404],
    ]);
    expect(player.subtitles).toEqual([]);
    expect(player.streamSubtitles.map((s) => s.url)).toEqual(['https://example.com/s/s1e2.en.vtt']);
    // A stream without hints (and null video params) makes it ask for the plain file.
    const plain = await core.player(streams[1], target);
    expect(plain.subtitlesFetches.map((f) => new URL(f.url).pathname)).toEqual(['/repo/subtitles/series/ex%3As1%3A1%3A2.json']);
    expect(plain.subtitles.map((s) => [s.lang, s.url])).toEqual([['fre', 'https://example.com/s/s1e2.fr.vtt']]);
  });
});
