// Addons for titles that other addons describe: streams and subtitles for IMDb ids (Cinemeta's),
// with no meta, no catalog and no invented fields; one addon that also describes titles of its
// own; `resources` written in addon.yaml and checked. Then the real client core with a hand-written
// metadata addon standing in for Cinemeta (test/fixtures/meta-stand-in) and this addon, both
// installed in both orders, on nginx set up like GitHub Pages and on the Cloudflare Pages runtime:
// each film and episode shows the stand-in's metadata and this addon's streams and subtitles.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { contentDir, readTree, tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { startStaticServer } from './support/static-server.js';
import { BROWSER_ORIGIN, startCore, type Core, type Json } from './support/stremio-core.js';
import { freePort, startPagesDev } from './support/wrangler.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const STREAMS_DIR = fixture('streams-for-cinemeta');
const BOTH_DIR = fixture('films-and-streams');
const META_DIR = fixture('meta-stand-in');

/** An output folder inside a temporary folder of its own (removed after the test, with what is beside it). */
async function outDir(): Promise<string> {
  return path.join(await tempDir('addon-gen-streams-'), 'dist');
}

async function built(dir: string, host: Host = 'github-pages', baseUrl = 'https://example.org/addon/') {
  const out = await outDir();
  const result = await build({ contentDir: dir, outDir: out, baseUrl, hosts: [host] });
  return { out, result, tree: result.ok ? await readTree(out) : new Map<string, Buffer>() };
}

function json(tree: Map<string, Buffer>, file: string): Json {
  const bytes = tree.get(file);
  if (bytes === undefined) throw new Error(`${file} was not written`);
  return JSON.parse(bytes.toString('utf8'));
}

/** The diagnostics as `code file:line:column path: message`, the way a reader checks them. */
function problems(result: BuildResult): string[] {
  return result.diagnostics.map((d) => `${d.severity} ${d.code} ${path.basename(d.file ?? '')}:${d.line}:${d.column} ${d.path ?? ''}: ${d.message}`);
}

const ADDON = 'id: org.example.test\nversion: 1.0.0\nname: Test Addon\ndescription: For tests\n';

describe('streams and subtitles for titles another addon describes', () => {
  it('builds the exact form of the issue silently into stream and subtitles files, and a manifest of exactly those', async () => {
    const { result, tree } = await built(STREAMS_DIR);
    expect(problems(result)).toEqual([]);
    const resourceFiles = [...tree.keys()].filter((f) => /^(meta|catalog|stream|subtitles)\/.*\.json$/.test(f)).sort();
    expect(resourceFiles).toEqual([
      'stream/movie/tt0032599.json',
      'stream/series/tt0034167:1:1.json',
      'stream/series/tt0034167:1:2.json',
      'subtitles/movie/tt0032599.json',
      'subtitles/series/tt0034167:1:1.json',
      'subtitles/series/tt0034167:1:2.json',
    ]);
    const manifest = json(tree, 'manifest.json');
    expect(manifest.resources).toEqual([
      { name: 'stream', types: ['movie', 'series'], idPrefixes: ['tt'] },
      { name: 'subtitles', types: ['movie', 'series'], idPrefixes: ['tt'] },
    ]);
    expect(manifest.types).toEqual(['movie', 'series']);
    expect(manifest.idPrefixes).toEqual(['tt']);
    expect(manifest.catalogs).toEqual([]);
    // The streams as written, the title's subtitles travelling in its stream too.
    expect(json(tree, 'stream/movie/tt0032599.json')).toEqual({
      streams: [
        {
          url: 'https://archive.org/download/his_girl_friday/his_girl_friday.mp4',
          name: 'Internet Archive',
          subtitles: [{ id: expect.any(String), lang: 'eng', url: 'https://archive.org/download/his_girl_friday/hgf.eng.srt' }],
        },
      ],
    });
    expect(json(tree, 'stream/series/tt0034167:1:1.json').streams).toEqual([{ ytId: 'dQw4w9WgXcQ' }]);
    expect(json(tree, 'subtitles/series/tt0034167:1:1.json').subtitles).toEqual([]);
    expect(json(tree, 'subtitles/series/tt0034167:1:2.json').subtitles).toMatchObject([{ lang: 'fre' }]);
  });

  it('the bundled stream example (examples/streams) builds silently into a stream and subtitles addon', async () => {
    const { result, tree } = await built(fileURLToPath(new URL('../examples/streams', import.meta.url)));
    expect(problems(result)).toEqual([]);
    expect(json(tree, 'manifest.json').resources).toEqual([
      { name: 'stream', types: ['movie', 'series'], idPrefixes: ['tt'] },
      { name: 'subtitles', types: ['movie'], idPrefixes: ['tt'] },
    ]);
    expect([...tree.keys()].filter((f) => f.startsWith('meta/') || f.startsWith('catalog/'))).toEqual([]);
  });

  it('describes its own films and adds streams to Cinemeta titles in one addon, each resource for its own ids', async () => {
    const { result, tree } = await built(BOTH_DIR);
    expect(problems(result)).toEqual([]);
    const manifest = json(tree, 'manifest.json');
    expect(manifest.resources).toEqual([
      'catalog',
      { name: 'meta', types: ['movie'], idPrefixes: ['pd:'] },
      { name: 'stream', types: ['movie', 'series'], idPrefixes: ['pd:', 'tt'] },
    ]);
    expect(manifest.idPrefixes).toEqual(['pd:', 'tt']);
    const files = [...tree.keys()].filter((f) => /^(meta|catalog|stream|subtitles)\/.*\.json$/.test(f)).sort();
    expect(files).toEqual([
      'catalog/movie/films.json',
      'catalog/movie/films/skip=2.json',
      'meta/movie/pd:metropolis.json',
      'meta/movie/pd:nosferatu.json',
      'stream/movie/pd:metropolis.json',
      'stream/movie/pd:nosferatu.json',
      'stream/movie/tt0032599.json',
      'stream/series/tt0034167:1:1.json',
    ]);
    // The catalog lists the films it describes, not the titles it only adds streams to.
    expect(json(tree, 'catalog/movie/films.json').metas.map((m: Json) => m.id)).toEqual(['pd:nosferatu', 'pd:metropolis']);
  });

  it('a subtitles-only addon declares subtitles alone, and warns where the host cannot answer the player', async () => {
    const dir = await contentDir({
      'addon.yaml': ADDON,
      'subs.yaml': '- id: tt0032599\n  type: movie\n  subtitles: [{ lang: eng, url: "https://subs.example.org/hgf.srt" }]\n',
    });
    const pages = await built(dir, 'github-pages');
    expect(problems(pages.result)).toEqual([expect.stringMatching(/^warning subtitles-need-rewrites subs\.yaml:3:\d+ subtitles: .*github-pages/)]);
    expect(json(pages.tree, 'manifest.json').resources).toEqual([{ name: 'subtitles', types: ['movie'], idPrefixes: ['tt'] }]);
    expect([...pages.tree.keys()].filter((f) => f.startsWith('stream/') && f.endsWith('.json'))).toEqual([]);
    const cloudflare = await built(dir, 'cloudflare');
    expect(problems(cloudflare.result)).toEqual([]);
    // Cloudflare's JSON 404 only where the client may ask: the subtitles folder.
    expect([...cloudflare.tree.keys()].filter((f) => f.endsWith('/404.html'))).toEqual(['subtitles/404.html']);
  });

  it('declares streams and subtitles each for the ids that have them, and writes a file for every id it declares', async () => {
    const dir = await contentDir({
      'addon.yaml': `${ADDON}catalogs:\n  - { id: shows, type: series, name: Shows }\n`,
      'a.yaml': [
        '- { id: "pd:show", type: series, name: Show, videos: [{ season: 1, episode: 1, streams: [{ url: "https://example.org/1.mp4" }] }] }',
        '- { id: "tt0034167:1:1", type: series, subtitles: [{ lang: eng, url: "https://example.org/1.srt" }] }',
        '- { id: "tt0034167:1:2", type: series, streams: [{ ytId: dQw4w9WgXcQ }] }',
        '',
      ].join('\n'),
    });
    const { result, tree } = await built(dir, 'cloudflare');
    expect(problems(result)).toEqual([]);
    expect(json(tree, 'manifest.json').resources).toEqual([
      'catalog',
      { name: 'meta', types: ['series'], idPrefixes: ['pd:'] },
      { name: 'stream', types: ['series'], idPrefixes: ['pd:', 'tt'] },
      { name: 'subtitles', types: ['series'], idPrefixes: ['tt'] },
    ]);
    // Every id the manifest invites gets its file (`[]` for the episode with subtitles only);
    // the series' own episode has no subtitles file: the client never asks this addon for it.
    const files = [...tree.keys()].filter((f) => /^(stream|subtitles)\/.*\.json$/.test(f)).sort();
    expect(files).toEqual([
      'stream/series/pd:show:1:1.json',
      'stream/series/tt0034167:1:1.json',
      'stream/series/tt0034167:1:2.json',
      'subtitles/series/tt0034167:1:1.json',
      'subtitles/series/tt0034167:1:2.json',
    ]);
    expect(json(tree, 'stream/series/tt0034167:1:1.json').streams).toEqual([]);
  });

  it('refuses an items: all catalog that only titles without a name would fill', async () => {
    const dir = await contentDir({
      'addon.yaml': `${ADDON}catalogs:\n  - { id: films, type: movie, name: Films }\n`,
      'a.yaml': '- id: tt0032599\n  type: movie\n  streams: [{ url: "https://example.org/a.mp4" }]\n',
    });
    const { result } = await built(dir);
    expect(problems(result)).toEqual([expect.stringMatching(/^error missing-field a\.yaml:1:3 name: .*catalog "films" .*would list none/)]);
  });

  it('still requires a name where the addon describes the title, and says why', async () => {
    const dir = await contentDir({
      'addon.yaml': `${ADDON}catalogs:\n  - { id: films, type: movie, name: Films }\n  - { id: picks, type: movie, name: Picks, items: listed }\n`,
      'a.yaml': [
        '- { id: "pd:a", type: movie, name: A }',
        '- id: "pd:b"', //                               line 2: in catalog films (items: all), like pd:a
        '  type: movie',
        '- id: tt0032599', //                            line 4: names a catalog
        '  type: movie',
        '  catalogs: [picks]',
        '- id: tt0034167', //                            line 7: has videos
        '  type: series',
        '  videos: [{ season: 1, episode: 1, title: One }]',
        '- id: tt0000001', //                            line 10: has a poster
        '  type: movie',
        '  poster: https://example.org/p.jpg',
        '  streams: [{ url: "https://example.org/a.mp4" }]',
        '',
      ].join('\n'),
    });
    const { result } = await built(dir);
    expect(result.ok).toBe(false);
    const missing = result.diagnostics.filter((d) => d.code === 'missing-field').sort((a, b) => a.line! - b.line!);
    expect(missing.map((d) => [d.line, d.path])).toEqual([
      [2, 'name'],
      [4, 'name'],
      [7, 'name'],
      [10, 'name'],
    ]);
    expect(missing[0]!.message).toMatch(/describes the titles whose ids start with "pd:" \(such as "pd:a"\)/);
    expect(missing[0]!.related).toMatchObject([{ line: 1 }]);
    expect(missing[1]!.message).toMatch(/catalog "picks"/);
    expect(missing[2]!.message).toMatch(/videos/);
    expect(missing[3]!.message).toMatch(/poster/);
    // Each says what to do for the other meaning too: streams for a title described elsewhere.
    for (const d of missing) expect(d.hint).toMatch(/another addon/);
  });

  it('warns of a type one letter away from the types the client asks streams with', async () => {
    const dir = await contentDir({
      'addon.yaml': ADDON,
      'a.yaml': '- id: tt0032599\n  type: movei\n  streams: [{ url: "https://example.org/a.mp4" }]\n',
    });
    const { result } = await built(dir);
    expect(problems(result)).toEqual([expect.stringMatching(/^warning unknown-type a\.yaml:2:\d+ type: .*"movei"/)]);
    expect(result.diagnostics[0]!.hint).toMatch(/did you mean "movie"\?/);
  });

  it('checks `resources` in addon.yaml against the content, at its line', async () => {
    const items = '- id: tt0032599\n  type: movie\n  streams: [{ url: "https://example.org/a.mp4" }]\n';
    const check = async (resources: string) => {
      const dir = await contentDir({ 'addon.yaml': `${ADDON}resources: ${resources}\n`, 'a.yaml': items });
      return (await built(dir)).result;
    };
    const good = await check('[stream]');
    expect(problems(good)).toEqual([]);
    const extra = await check('[stream, meta]');
    expect(problems(extra)).toEqual([expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources\[1\]: .*meta/)]);
    const missing = await check('[meta]');
    expect(problems(missing)).toEqual([
      expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources\[0\]: .*meta/),
      expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources: .*stream/),
    ]);
    const typed = await check('[{ name: stream, types: [movie, series], idPrefixes: [tt] }]');
    expect(problems(typed)).toEqual([expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources\[0\]\.types\[1\]: .*series/)]);
    const prefixes = await check('[{ name: stream, types: [movie], idPrefixes: [tt, pd] }]');
    expect(problems(prefixes)).toEqual([expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources\[0\]\.idPrefixes\[1\]: .*"pd"/)]);
    const narrow = await check('[{ name: stream, idPrefixes: [tt1] }]');
    expect(problems(narrow)).toEqual([
      expect.stringMatching(/^error invalid-value a\.yaml:1:\d+ id: "tt0032599" starts with none of the idPrefixes of stream/),
      expect.stringMatching(/^error invalid-value addon\.yaml:5:\d+ resources\[0\]\.idPrefixes\[0\]: .*"tt1"/),
    ]);
    const catalog = await check('[stream, { name: catalog, types: [movie] }]');
    expect(problems(catalog)).toEqual([expect.stringMatching(/resources\[1\]: catalog takes no types/)]);
  });
});

// ---------------------------------------------------------------------------------------------
// The real client core, with a metadata addon standing in for Cinemeta.

interface Title {
  type: string;
  id: string;
  videoId: string;
  name: string;
  /** What this addon's stream for it holds. */
  stream: Json;
  subtitles: string[];
}

const TITLES: Title[] = [
  {
    type: 'movie',
    id: 'tt0032599',
    videoId: 'tt0032599',
    name: 'His Girl Friday',
    stream: { url: 'https://archive.org/download/his_girl_friday/his_girl_friday.mp4' },
    subtitles: ['https://archive.org/download/his_girl_friday/hgf.eng.srt'],
  },
  { type: 'series', id: 'tt0034167', videoId: 'tt0034167:1:1', name: 'Adventures of Captain Marvel', stream: { ytId: 'dQw4w9WgXcQ' }, subtitles: [] },
  {
    type: 'series',
    id: 'tt0034167',
    videoId: 'tt0034167:1:2',
    name: 'Adventures of Captain Marvel',
    stream: { url: 'https://archive.org/download/serial/chapter-2.mp4' },
    subtitles: ['https://archive.org/download/serial/chapter-2.fre.srt'],
  },
];

/**
 * A fresh client for each order, with the stand-in and this addon installed in that order, handed
 * to `use`; then every request to either addon must have been answered.
 */
async function inBothOrders(metaUrl: string, streamsUrl: string, use: (core: Core, order: string) => Promise<void>) {
  for (const order of ['meta first', 'streams first']) {
    const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
    try {
      const urls = order === 'meta first' ? [metaUrl, streamsUrl] : [streamsUrl, metaUrl];
      for (const url of urls) await core.installAddon(url);
      expect(core.installedAddons().slice(-2)).toEqual(urls);
      await use(core, order);
      const bases = [metaUrl, streamsUrl].map((url) => url.replace(/manifest\.json$/, ''));
      const failed = core.fetches.filter((f) => bases.some((base) => f.url.startsWith(base)) && f.status !== 200);
      expect(failed.map((f) => `${f.status} ${f.url}`)).toEqual([]);
    } finally {
      await core.stop();
    }
  }
}

/** Each title opened and played as a user does. */
async function openTitles(core: Core, order: string, metaUrl: string, streamsUrl: string) {
  const streamsBase = streamsUrl.replace(/manifest\.json$/, '');
  for (const title of TITLES) {
    const label = `${order}: ${title.videoId}`;
    const details = await core.metaDetails(title.type, title.id, title.videoId);
    // The stand-in's metadata, never a stub from this addon (which has no meta to give).
    expect(details.meta?.transportUrl, label).toBe(metaUrl);
    expect(details.meta?.content.type, label).toBe('Ready');
    expect(details.meta?.content.content.name, label).toBe(title.name);
    if (title.type === 'series') expect(details.meta?.content.content.videos.length, label).toBe(2);
    expect(
      details.requests.filter((r) => r.startsWith(streamsBase) && !r.includes('/stream/')),
      label,
    ).toEqual([]);
    // This addon's streams for the title or episode.
    const ours = details.streams.find((s) => s.transportUrl === streamsUrl);
    expect(ours?.content.type, label).toBe('Ready');
    const streams = ours!.content.type === 'Ready' ? ours!.content.content : [];
    expect(streams, label).toHaveLength(1);
    expect(streams[0], label).toMatchObject(title.stream);
    // The player: the stand-in's meta, and the subtitles from this addon.
    const player = await core.player(streams[0], {
      transportUrl: streamsUrl,
      metaTransportUrl: metaUrl,
      type: title.type,
      id: title.id,
      videoId: title.videoId,
    });
    expect(JSON.stringify(player.metaItem), label).toContain(JSON.stringify(title.name));
    expect(
      player.subtitlesFetches.map((f) => [decodeURIComponent(f.url.slice(streamsBase.length)), f.status]),
      label,
    ).toEqual([[`subtitles/${title.type}/${title.videoId}.json`, 200]]);
    expect(player.subtitles.map((s: Json) => s.url).sort(), label).toEqual(title.subtitles);
    // The same subtitles travel in the stream, for players that do not ask the resource.
    expect(
      player.streamSubtitles.map((s: Json) => s.url),
      label,
    ).toEqual(title.subtitles);
  }
}

describe('in the real client core, beside a metadata addon standing in for Cinemeta', () => {
  it('on nginx set up like GitHub Pages, under a sub-path, in both orders', async () => {
    const meta = await startStaticServer(META_DIR);
    const port = await freePort();
    const { out, result } = await built(STREAMS_DIR, 'github-pages', `http://127.0.0.1:${port}/repo/`);
    expect(problems(result)).toEqual([]);
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      const [metaUrl, streamsUrl] = [`${meta.url}manifest.json`, `${nginx.url}manifest.json`];
      await inBothOrders(metaUrl, streamsUrl, (core, order) => openTitles(core, order, metaUrl, streamsUrl));
    } finally {
      await Promise.all([nginx.close(), meta.close()]);
    }
  }, 120_000);

  it('one addon with films of its own and streams for Cinemeta titles, on a plain static host, in both orders', async () => {
    const meta = await startStaticServer(META_DIR);
    const out = await outDir();
    const host = await startStaticServer(path.dirname(out), { prefix: '/repo/' });
    const baseUrl = `${host.url}dist/`;
    expect(problems(await build({ contentDir: BOTH_DIR, outDir: out, baseUrl, hosts: ['github-pages'] }))).toEqual([]);
    try {
      await inBothOrders(`${meta.url}manifest.json`, `${baseUrl}manifest.json`, async (core, order) => {
        // Its own catalog, with its own films, described by it.
        const row = (await core.board()).find((r) => r.id === 'films');
        expect(row?.ids, order).toEqual(['pd:nosferatu', 'pd:metropolis']);
        const own = await core.metaDetails('movie', 'pd:nosferatu', 'pd:nosferatu');
        expect(own.meta?.transportUrl, order).toBe(`${baseUrl}manifest.json`);
        expect(own.meta?.content.content.name, order).toBe('Nosferatu');
        expect(own.streams.find((s) => s.transportUrl === `${baseUrl}manifest.json`)?.content.type, order).toBe('Ready');
        // Cinemeta's title, described by the stand-in, with this addon's stream on it, and no
        // meta request to this addon for it.
        const theirs = await core.metaDetails('movie', 'tt0032599', 'tt0032599');
        expect(theirs.meta?.transportUrl, order).toBe(`${meta.url}manifest.json`);
        expect(theirs.meta?.content.content.name, order).toBe('His Girl Friday');
        const streams = theirs.streams.find((s) => s.transportUrl === `${baseUrl}manifest.json`)?.content;
        expect(streams?.type === 'Ready' ? streams.content.map((s: Json) => s.url) : streams, order).toEqual([
          'https://archive.org/download/his_girl_friday/his_girl_friday.mp4',
        ]);
        expect(
          theirs.requests.filter((r) => r.startsWith(`${baseUrl}meta/`)),
          order,
        ).toEqual([]);
      });
    } finally {
      await Promise.all([host.close(), meta.close()]);
    }
  }, 120_000);

  it('on the Cloudflare Pages runtime (wrangler pages dev), in both orders', async () => {
    const meta = await startStaticServer(META_DIR);
    const port = await freePort();
    const { out, result } = await built(STREAMS_DIR, 'cloudflare', `http://127.0.0.1:${port}/`);
    expect(problems(result)).toEqual([]);
    const pages = await startPagesDev(out, { port });
    try {
      const [metaUrl, streamsUrl] = [`${meta.url}manifest.json`, `${pages.url}manifest.json`];
      await inBothOrders(metaUrl, streamsUrl, (core, order) => openTitles(core, order, metaUrl, streamsUrl));
    } finally {
      await Promise.all([pages.close(), meta.close()]);
    }
  }, 180_000);
});
