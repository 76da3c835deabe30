// The example addon, built and served from a plain static server under a sub-path, walked by the
// real Stremio client core the way stremio-web drives it: install, board, discover with every
// page and genre, every meta, the streams of every movie and episode, and subtitles in the player.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { addonYaml, contentDir, movies, removeOutput } from './support/content.js';
import { readExample, EXAMPLE_DIR, type Example } from './support/example.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';
import { startCore, type Core, type Json } from './support/stremio-core.js';

let server: StaticServer;
let core: Core;
let example: Example;
let manifestUrl: string;
let out: string;

beforeAll(async () => {
  example = await readExample();
  // A folder for the life of this file (tempDir's cleanup runs after each test).
  out = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-client-'));
  server = await startStaticServer(out, { prefix: '/repo/' });
  const result = await build({ contentDir: EXAMPLE_DIR, outDir: out, baseUrl: server.url });
  expect(result.ok).toBe(true);
  manifestUrl = `${server.url}manifest.json`;
  core = await startCore();
  await core.installAddon(manifestUrl);
});

afterAll(async () => {
  await core?.stop();
  await server?.close();
  await removeOutput(out);
});

describe('the real client core', () => {
  it('installs the addon from its manifest URL under a sub-path', () => {
    expect(core.installedAddons()).toEqual([manifestUrl]);
  });

  it('shows every catalog on the board without an error, but the one kept off it', async () => {
    const board = await core.board();
    expect(example.catalogs.filter((c) => !c.plain).map((c) => c.id)).toEqual(['archive']);
    expect(board.map((row) => [row.type, row.id])).toEqual(example.catalogs.filter((c) => c.plain).map((c) => [c.type, c.id]));
    for (const row of board) {
      const catalog = example.catalogs.find((c) => c.id === row.id)!;
      expect(row.error, row.id).toBeNull();
      expect(row.ids.length, row.id).toBe(Math.min(10, catalog.members.length));
    }
  });

  it('pages through every catalog and every genre to the empty last page', async () => {
    for (const catalog of example.catalogs) {
      const filters: [string, number][] = [...(catalog.plain ? [['', catalog.members.length] as [string, number]] : []), ...catalog.genres];
      for (const [genre, count] of filters) {
        const extra: [string, string][] = genre ? [['genre', genre]] : [];
        const result = await core.discover({ base: manifestUrl, path: { resource: 'catalog', type: catalog.type, id: catalog.id, extra } });
        const label = `${catalog.id} ${genre}`;
        expect(result.error, label).toBeNull();
        expect(result.endError, label).toBeNull();
        expect(result.ids.length, label).toBe(count);
        expect(new Set(result.ids).size, label).toBe(count);
        const members =
          genre && genre !== 'All' ? catalog.members.filter((id) => example.items.find((i) => i.id === id)!.genres.includes(genre)) : catalog.members;
        expect([...result.ids].sort(), label).toEqual([...members].sort());
      }
    }
  });

  it('orders a catalog sorted by -released newest first', async () => {
    const films = await core.discover({ base: manifestUrl, path: { resource: 'catalog', type: 'movie', id: 'films', extra: [] } });
    const dates = films.ids.map((id) => Date.parse(example.items.find((i) => i.id === id)!.released!));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it('opens every meta and the streams of every movie and episode, dropping nothing', async () => {
    for (const item of example.items) {
      const details = await core.metaDetails(item.type, item.id);
      expect(details.meta?.content.type, item.id).toBe('Ready');
      const meta: Json = details.meta!.content.content;
      expect(meta.name).toBe(item.name);
      // Genres become links to this addon's own catalogs, not Cinemeta's.
      for (const link of meta.links.filter((l: Json) => l.category === 'Genres')) {
        expect(decodeURIComponent(link.url)).toContain(manifestUrl);
      }
      if (item.videos > 0) expect(meta.videos.length, item.id).toBe(item.videos);

      for (const owner of item.owners) {
        const streams = await core.metaDetails(item.type, item.id, owner.id);
        expect(streams.streams, owner.id).toHaveLength(1);
        const loadable = streams.streams[0]!.content;
        expect(loadable.type, owner.id).toBe('Ready');
        // The core drops invalid streams silently: equal counts mean every stream parsed.
        expect((loadable as { content: Json[] }).content.length, owner.id).toBe(owner.streams);
      }
    }
  });

  it('gives the player the subtitles of a film and of an episode', async () => {
    for (const item of example.items) {
      for (const owner of item.owners.filter((o) => o.subtitles > 0)) {
        const details = await core.metaDetails(item.type, item.id, owner.id);
        const streams = (details.streams[0]!.content as { content: Json[] }).content;
        const player = await core.player(streams[0], { transportUrl: manifestUrl, type: item.type, id: item.id, videoId: owner.id });
        // Embedded in the stream (works on every host) ...
        expect(player.streamSubtitles.length, owner.id).toBe(owner.subtitles);
        // ... and each URL is served by the static host.
        for (const subtitle of player.streamSubtitles) {
          const response = await fetch(subtitle.url);
          expect(response.status, subtitle.url).toBe(200);
        }
      }
    }
  });
});

describe('the real client core on a catalog of 250 items', () => {
  it('pages through it and through a genre filter, both past the first 100', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All, genres: auto }\n'),
      'movies.yaml': movies(250, (i) => (i % 5 === 0 ? ['Comedy'] : ['Drama'])),
    });
    const served = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-client-'));
    const big = await startStaticServer(served);
    try {
      expect((await build({ contentDir: dir, outDir: served, baseUrl: big.url })).ok).toBe(true);
      const url = `${big.url}manifest.json`;
      await core.installAddon(url);
      const all = await core.discover({ base: url, path: { resource: 'catalog', type: 'movie', id: 'all', extra: [] } });
      expect(all.error).toBeNull();
      expect(all.endError).toBeNull();
      expect(all.ids).toEqual(Array.from({ length: 250 }, (_, i) => `t:${String(i).padStart(4, '0')}`));
      const drama = await core.discover({ base: url, path: { resource: 'catalog', type: 'movie', id: 'all', extra: [['genre', 'Drama']] } });
      expect(drama.endError).toBeNull();
      expect(drama.ids.length).toBe(200);
      // The core's own order of extras: the one it set last (skip) first.
      expect(big.requests).toContain('/catalog/movie/all/skip=100&genre=Drama.json');
      expect(big.requests).toContain('/catalog/movie/all/skip=200&genre=Drama.json');
    } finally {
      await big.close();
      await removeOutput(served);
    }
  });
});
