// Self-check of the full client walk (test/support/client-walk.ts): the example and the odd-ids
// fixture, built and served by the plain static server under a sub-path, walked by the real
// Stremio client core sending a browser's Origin. The counts must be what the YAML holds, counted
// here independently, and nothing may fail.
// Last, a broken tree (a meta file gone, a catalog's end page gone, no CORS on streams, an item
// no one has) shows that the walk does fail.
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { build } from '../src/build/index.js';
import { walkAddon, type WalkResult } from './support/client-walk.js';
import { removeOutput } from './support/content.js';
import { EXAMPLE_DIR, readExample, type Example } from './support/example.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';
import { BROWSER_ORIGIN, startCore } from './support/stremio-core.js';

const ODD_DIR = fileURLToPath(new URL('./fixtures/odd-ids', import.meta.url));
const enc = encodeURIComponent;

interface HintedStream {
  type: string;
  owner: string;
  hints: { filename?: string; videoSize?: number; videoHash?: string };
}

/** Streams with subtitles hints, read straight from the YAML (videos' default ids applied). */
async function hintedStreams(dir: string): Promise<HintedStream[]> {
  const found: HintedStream[] = [];
  for (const file of (await fg('**/*.{yaml,yml}', { cwd: dir })).filter((f) => f !== 'addon.yaml').sort()) {
    for (const doc of parseAllDocuments(await readFile(path.join(dir, file), 'utf8'))) {
      const value = (doc as { toJS(): unknown }).toJS();
      for (const item of (Array.isArray(value) ? value : value ? [value] : []) as any[]) {
        for (const owner of item.videos ?? [item]) {
          const id = owner === item ? item.id : (owner.id ?? `${item.id}:${owner.season}:${owner.episode}`);
          for (const stream of owner.streams ?? []) {
            const { filename, videoSize, videoHash } = stream.behaviorHints ?? {};
            if (filename !== undefined || videoSize !== undefined || videoHash !== undefined) {
              found.push({ type: item.type, owner: id, hints: { filename, videoSize, videoHash } });
            }
          }
        }
      }
    }
  }
  return found;
}

/** The request path the core makes for a stream's hints: filename, videoSize, videoHash, in that order. */
function hintedPath({ type, owner, hints }: HintedStream): string {
  const extras = (['filename', 'videoSize', 'videoHash'] as const).filter((k) => hints[k] !== undefined).map((k) => `${k}=${enc(String(hints[k]))}`);
  return `subtitles/${enc(type)}/${enc(owner)}/${extras.join('&')}.json`;
}

/** What the walk must count on a content folder, from its YAML. */
function expectedCounts(content: Example) {
  const owners = content.items.flatMap((i) => i.owners);
  return {
    catalogItems: content.catalogs.reduce((n, c) => n + (c.plain ? c.members.length : 0) + [...c.genres.values()].reduce((a, b) => a + b, 0), 0),
    metas: content.items.length,
    streams: owners.reduce((n, o) => n + o.streams, 0),
    subtitles: owners.reduce((n, o) => n + o.subtitles, 0),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function builtAndServed(dir: string): Promise<{ out: string; server: StaticServer; manifestUrl: string }> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-walk-'));
  cleanups.push(() => removeOutput(out));
  const server = await startStaticServer(out, { prefix: '/repo/' });
  cleanups.push(() => server.close());
  const result = await build({ contentDir: dir, outDir: out, baseUrl: server.url });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return { out, server, manifestUrl: `${server.url}manifest.json` };
}

async function walk(manifestUrl: string, items?: { type: string; id: string }[]): Promise<WalkResult> {
  const core = await startCore({ origin: BROWSER_ORIGIN });
  try {
    return await walkAddon(core, manifestUrl, { items });
  } finally {
    await core.stop();
  }
}

describe.each([
  ['the example', EXAMPLE_DIR],
  ['odd-ids', ODD_DIR],
])('a full client walk of %s on a plain static host', (name, dir) => {
  let content: Example;
  let result: WalkResult;

  beforeAll(async () => {
    content = await readExample(dir);
    const served = await builtAndServed(dir);
    result = await walk(served.manifestUrl);
    console.log(
      `${name}: walk took ${result.ms} ms, counts ${JSON.stringify(result.counts)}, ` +
        `${result.failures.length} failures${result.failures.map((f) => `\n  ${f}`).join('')}`,
    );
  }, 120_000);

  it('opens every item, catalog listing, stream and subtitle the content holds', () => {
    expect(result.items.map((i) => `${i.type} ${i.id}`).sort()).toEqual(content.items.map((i) => `${i.type} ${i.id}`).sort());
    const { requests, ...counts } = result.counts;
    expect(counts).toEqual(expectedCounts(content));
    expect(requests).toBe(result.requests.length);
  });

  it('fails on nothing: the build writes a file for every request, subtitles of every owner and hint included', () => {
    expect(result.failures).toEqual([]);
    expect(result.requests.filter((r) => r.status !== 200)).toEqual([]);
    // Every answer carried the CORS header a browser needs.
    expect(result.requests.filter((r) => r.allowOrigin !== '*')).toEqual([]);
  });

  it('makes the plain subtitles request per item and video, and one with the hints of each hinted stream', async () => {
    // The subtitles resource covers the types and id prefixes (README, "idPrefixes": up to the
    // first `:`) of the items that have subtitles; the client asks for no other id.
    const subtitled = content.items.filter((i) => i.owners.some((o) => o.subtitles > 0));
    const prefixOf = (id: string) => id.slice(0, id.indexOf(':') + 1) || id;
    const prefixes = new Set(subtitled.flatMap((i) => [i.id, ...i.owners.map((o) => o.id)]).map(prefixOf));
    const types = new Set(subtitled.map((i) => i.type));
    const covered = (type: string, id: string) => types.has(type) && [...prefixes].some((p) => id.startsWith(p));
    const plain = content.items.flatMap((i) =>
      i.owners.filter((o) => covered(i.type, o.id)).map((o) => `subtitles/${enc(i.type)}/${enc(o.id)}.json`),
    );
    expect(plain.length).toBeGreaterThan(10);
    const hinted = (await hintedStreams(dir)).map(hintedPath);
    expect(new Set(result.subtitlesRequests)).toEqual(new Set([...plain, ...hinted]));
  });
});

it('documents the exact subtitles request paths of hinted streams (odd-ids)', async () => {
  const hinted = (await hintedStreams(ODD_DIR)).map(hintedPath);
  expect(hinted).toEqual(
    expect.arrayContaining([
      'subtitles/movie/odd%3Ahints%3A%20filename/filename=Odd%20Film%20(1999)%20%E2%80%93%20100%25%20R%26B%20%3D%20%C3%BC%2B%C3%B1.mp4.json',
      'subtitles/movie/odd%3Ahints%3A%20filename/filename=odd%20all%20three.mkv&videoSize=1234567890&videoHash=8e245d9679d31e12.json',
      'subtitles/movie/odd%3Ahints%3A%20filename/videoSize=987654.json',
      'subtitles/movie/odd%3Ahints%3A%20filename/videoSize=42&videoHash=00ff00ff00ff00ff.json',
      'subtitles/series/odd%3Aep%20a%26b%3Dc%2Bd%2050%25/filename=S01E02%20a%26b%3Dc%2Bd%2050%25.mp4.json',
    ]),
  );
});

/** A proxy in front of `target` that drops Access-Control-Allow-Origin from answers whose path matches. */
async function stripCors(target: string, matches: (rawPath: string) => boolean): Promise<{ url: string; server: Server }> {
  const targetUrl = new URL(target);
  const server = createServer((req, res) => {
    fetch(`${targetUrl.origin}${req.url}`)
      .then(async (upstream) => {
        const headers: Record<string, string> = { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' };
        if (!matches(req.url ?? '')) headers['access-control-allow-origin'] = upstream.headers.get('access-control-allow-origin') ?? '';
        res.writeHead(upstream.status, headers);
        res.end(Buffer.from(await upstream.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${targetUrl.pathname}`, server };
}

it('reports a missing meta, a missing end page, missing CORS and an unknown item', async () => {
  const content = await readExample(ODD_DIR);
  const served = await builtAndServed(ODD_DIR);
  const genre = 'a=b';
  const total = content.catalogs.find((c) => c.id === 'odd films')!.genres.get(genre)!;
  await rm(path.join(served.out, 'meta/movie/odd:a&b.json'));
  await rm(path.join(served.out, `catalog/movie/odd films/skip=${total}&genre=${genre}.json`));
  const proxy = await stripCors(served.server.url, (p) => p.includes('/stream/series/'));
  const result = await walk(`${proxy.url}manifest.json`, [{ type: 'movie', id: 'odd:in no catalog' }]);
  console.log(`broken odd-ids: ${result.failures.length} failures${result.failures.map((f) => `\n  ${f}`).join('')}`);

  const base = proxy.url;
  const has = (pattern: RegExp) =>
    expect(
      result.failures.filter((f) => pattern.test(f)),
      String(pattern),
    ).not.toEqual([]);
  const metaUrl = `${base}meta/movie/${enc('odd:a&b')}.json`;
  has(new RegExp(`^HTTP 404: ${escape(metaUrl)} `));
  has(new RegExp(`^meta of movie "odd:a&b": Err .*: ${escape(metaUrl)}$`));
  const endUrl = `${base}catalog/movie/${enc('odd films')}/skip=${total}&genre=${enc(genre)}.json`;
  has(new RegExp(`^discover: catalog movie/odd films genre=a=b: paging ended on HTTP 404: ${escape(endUrl)}$`));
  has(new RegExp(`^HTTP 404: ${escape(endUrl)} `));
  has(new RegExp(`^Access-Control-Allow-Origin is missing, not \\*: ${escape(base)}stream/series/`));
  has(new RegExp(`^meta of movie "odd:in no catalog": Err .*${escape(enc('odd:in no catalog'))}\\.json$`));
  // Nothing else broke: every other failure is one of those, or a subtitles request.
  const known =
    /^(HTTP 404: .*\/(meta|catalog)\/|player: .*: subtitles HTTP 404: |meta of movie "odd:(a&b|in no catalog)"|discover: catalog movie\/odd films genre=a=b|Access-Control-Allow-Origin is missing, not \*: .*\/stream\/series\/)/;
  expect(result.failures.filter((f) => !known.test(f))).toEqual([]);
  expect(result.counts.metas).toBe(content.items.length - 1);
}, 120_000);

function escape(text: string): string {
  return text.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&');
}
