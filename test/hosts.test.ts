// Host rule files. First the real thing: the example addon served by the Cloudflare Pages runtime
// (`wrangler pages dev`, which reads `_headers`, `_redirects` and `404.html` as production does),
// checked over HTTP the way the client asks. Then each renderer's output on its own: rule counts,
// overlapping rules, vercel.json, the S3 script and CORS file, and which files `--host` writes.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import { headerRules, headersFor } from '../src/hosts/index.js';
import { addonYaml, contentDir, movies, readTree, removeOutput, tempDir } from './support/content.js';
import { clientRequest, envelopeProblems } from './support/envelope.js';
import { EXAMPLE_DIR, readExample, type Example } from './support/example.js';
import { freePorts, startPagesDev, type PagesDev } from './support/wrangler.js';

// The example's `cache` in content/addon.yaml, written out by hand in the README's format
// (`max-age=N, stale-while-revalidate=N, stale-if-error=N, public`): 3600/14400/604800 for every
// resource, and meta overrides only maxAge (86400), keeping the other two.
const EXAMPLE_CACHE = 'max-age=3600, stale-while-revalidate=14400, stale-if-error=604800, public';
const EXAMPLE_META_CACHE = 'max-age=86400, stale-while-revalidate=14400, stale-if-error=604800, public';
const JSON_TYPE = 'application/json; charset=utf-8';

// A tiny addon whose genres have a space and an `&` (the example's have neither), with a sparse
// `cache`: maxAge only, and the catalog adding staleError to it.
const GENRES = {
  'addon.yaml': addonYaml('cache:\n  maxAge: 60\n  catalog: { staleError: 600 }\ncatalogs:\n  - { id: all, type: movie, name: All, genres: auto }\n'),
  'movies.yaml': movies(3, (i) => (i === 1 ? ['"Film Noir"'] : ['"Rock & Roll"', '"Film Noir"'])),
};
const GENRES_CACHE = 'max-age=60, public';
const GENRES_CATALOG_CACHE = 'max-age=60, stale-if-error=600, public';

/** GET over real HTTP, the request path exactly as given (already encoded as the client does). */
async function get(server: PagesDev, requestPath: string) {
  const response = await fetch(server.url.replace(/\/$/, '') + requestPath, {
    redirect: 'manual',
    headers: { Origin: 'https://web.stremio.com' },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the example addon on the Cloudflare Pages runtime (wrangler pages dev)', () => {
  let example: Example;
  let out: string;
  let genresOut: string;
  let server: PagesDev;
  let genresServer: PagesDev;
  let result: BuildResult;

  beforeAll(async () => {
    example = await readExample();
    // Folders for the life of this file (tempDir's cleanup runs after each test).
    out = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-pages-'));
    genresOut = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-pages-'));
    // The port first, so that the build's base URL is the one wrangler will answer on.
    const [port, genresPort] = (await freePorts(2)) as [number, number];
    result = await build({ contentDir: EXAMPLE_DIR, outDir: out, baseUrl: `http://127.0.0.1:${port}/` });
    expect(result.ok).toBe(true);
    const genres = await build({ contentDir: await contentDir(GENRES), outDir: genresOut, baseUrl: `http://127.0.0.1:${genresPort}/` });
    expect(genres.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // Both awaited, and each kept once it is up: afterAll stops the one that started when the
    // other did not (a server left running held its ports past the run).
    const started = await Promise.allSettled([
      startPagesDev(out, { port }).then((pages) => (server = pages)),
      startPagesDev(genresOut, { port: genresPort }).then((pages) => (genresServer = pages)),
    ]);
    for (const start of started) if (start.status === 'rejected') throw start.reason;
  }, 90_000);

  afterAll(async () => {
    await Promise.all([server?.close(), genresServer?.close()]);
    await Promise.all([out, genresOut].filter(Boolean).map(removeOutput));
  }, 30_000);

  it('parses every rule of _headers and _redirects, refusing none', () => {
    const log = server.output();
    expect(log).toContain(`Parsed ${headerRules(result.content!).length} valid header rules`);
    expect(log).toContain('Parsed 1 valid redirect rule');
    expect(log).not.toMatch(/invalid (header|redirect) rule/i);
  });

  // [what, request path as the client makes it, file it must return, Cache-Control by hand]
  const resources: [string, string, string, string][] = [
    ['manifest', '/manifest.json', 'manifest.json', EXAMPLE_CACHE],
    ['catalog', clientRequest('catalog', 'movie', 'films'), 'catalog/movie/films.json', EXAMPLE_CACHE],
    [
      'catalog genre',
      clientRequest('catalog', 'movie', 'films', [['genre', 'Film-Noir']]),
      'catalog/movie/films/genre=Film-Noir.json',
      EXAMPLE_CACHE,
    ],
    ['movie meta', clientRequest('meta', 'movie', 'pd:nosferatu-1922'), 'meta/movie/pd:nosferatu-1922.json', EXAMPLE_META_CACHE],
    ['series meta', clientRequest('meta', 'series', 'pd:superman-1941'), 'meta/series/pd:superman-1941.json', EXAMPLE_META_CACHE],
    ['movie stream', clientRequest('stream', 'movie', 'pd:nosferatu-1922'), 'stream/movie/pd:nosferatu-1922.json', EXAMPLE_CACHE],
    ['episode stream', clientRequest('stream', 'series', 'pd:superman-1941:1:1'), 'stream/series/pd:superman-1941:1:1.json', EXAMPLE_CACHE],
    ['episode subtitles', clientRequest('subtitles', 'series', 'pd:superman-1941:1:1'), 'subtitles/series/pd:superman-1941:1:1.json', EXAMPLE_CACHE],
  ];

  it.each(resources)('serves the %s at %s with CORS, the JSON type and the Cache-Control the rules give', async (_what, request, file, cache) => {
    const response = await get(server, request);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe(cache);
    expect(response.headers.get('content-type')).toBe(JSON_TYPE);
    expect(response.text).toBe(await readFile(path.join(out, file), 'utf8'));
    expect(envelopeProblems(file, response.text)).toEqual([]);
    // The rules as the code models them agree with the hand-computed value and with the host.
    expect(headersFor(headerRules(result.content!), `/${file}`)['Cache-Control']).toBe(cache);
  });

  it('requests ids with ":" encoded as %3A, as the client does', () => {
    expect(clientRequest('stream', 'series', 'pd:superman-1941:1:1')).toBe('/stream/series/pd%3Asuperman-1941%3A1%3A1.json');
  });

  it('answers a subtitles request with extras with the subtitles file of that video', async () => {
    const request = '/subtitles/series/pd%3Asuperman-1941%3A1%3A1/filename=x.mp4&videoSize=123.json';
    expect(
      clientRequest('subtitles', 'series', 'pd:superman-1941:1:1', [
        ['filename', 'x.mp4'],
        ['videoSize', '123'],
      ]),
    ).toBe(request);
    const response = await get(server, request);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe(EXAMPLE_CACHE);
    expect(response.headers.get('content-type')).toBe(JSON_TYPE);
    expect(response.text).toBe(await readFile(path.join(out, 'subtitles/series/pd:superman-1941:1:1.json'), 'utf8'));
    // content/series/superman.yaml: episode 1:1 has one English subtitle, id superman-1-1-eng.
    const body = JSON.parse(response.text) as { subtitles: { id: string; lang: string; url: string }[] };
    expect(body.subtitles.map((s) => [s.id, s.lang])).toEqual([['superman-1-1-eng', 'eng']]);
    expect(body.subtitles[0]!.url).toBe(`${server.url}assets/subtitles/superman-mad-scientist.eng.srt`);
  });

  it('serves a copied local file with CORS and the default Cache-Control', async () => {
    const response = await get(server, '/assets/images/logo.png');
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe(EXAMPLE_CACHE);
  });

  it('lists the whole catalog on its first page', async () => {
    const films = example.catalogs.find((c) => c.id === 'films')!;
    const body = JSON.parse((await get(server, clientRequest('catalog', 'movie', 'films'))).text) as { metas: { id: string }[] };
    expect(body.metas.map((m) => m.id).sort()).toEqual([...films.members].sort());
  });

  it('answers unknown JSON paths with 404, not with the home page, and does not publish the bookkeeping', async () => {
    const home = await readFile(path.join(out, 'index.html'), 'utf8');
    for (const request of [
      clientRequest('meta', 'movie', 'pd:no-such-film'),
      clientRequest('stream', 'series', 'pd:superman-1941:9:9'),
      clientRequest('catalog', 'movie', 'nope'),
      clientRequest('subtitles', 'movie', 'pd:nosferatu-1922', [['filename', 'x.mp4']]).replace('nosferatu', 'no-such'),
      '/nope.json',
      '/.addon-gen.json',
    ]) {
      const response = await get(server, request);
      expect(response.status, request).toBe(404);
      expect(response.text, request).not.toBe(home);
      expect(response.headers.get('access-control-allow-origin'), request).toBe('*');
    }
  });

  it('serves genre pages whose names have a space or "&", with that catalog\'s Cache-Control', async () => {
    for (const [genre, ids] of [
      ['Film Noir', ['t:0000', 't:0001', 't:0002']],
      ['Rock & Roll', ['t:0000', 't:0002']],
    ] as const) {
      const request = clientRequest('catalog', 'movie', 'all', [['genre', genre]]);
      expect(request).toMatch(/%20/);
      const response = await get(genresServer, request);
      expect(response.status, request).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cache-control')).toBe(GENRES_CATALOG_CACHE);
      const body = JSON.parse(response.text) as { metas: { id: string }[] };
      expect(body.metas.map((m) => m.id)).toEqual(ids);
    }
    const manifest = await get(genresServer, '/manifest.json');
    expect(manifest.headers.get('cache-control')).toBe(GENRES_CACHE);
  });
});

// ---------------------------------------------------------------------------------------------
// The renderers, without a host: each file read back with a small parser of its own format.

interface ParsedRule {
  source: string;
  headers: [string, string][];
}

/** Cloudflare Pages / Netlify `_headers`: an unindented path line, then indented `Key: value` lines. */
function parseHeadersFile(text: string): ParsedRule[] {
  const rules: ParsedRule[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      rules.push({ source: line.trim(), headers: [] });
      continue;
    }
    const match = /^\s+([^:\s]+):\s*(.*)$/.exec(line);
    if (!match || rules.length === 0) throw new Error(`not a header line: ${line}`);
    rules.at(-1)!.headers.push([match[1]!, match[2]!]);
  }
  return rules;
}

/** Cloudflare's and Netlify's path patterns: `*` is a splat matching anything, `:name` one segment. */
function headersPattern(source: string): RegExp {
  const escaped = source
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/:\w+/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

/** Vercel's path-to-regexp sources as addon-gen writes them: literal paths and `(.*)` groups. */
function vercelPattern(source: string): RegExp {
  const parts = source.split('(.*)').map((p) => p.replace(/[.+?^${}()|[\]\\*]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/** Every header the rules give one path, lower-cased key -> the values of each matching rule. */
function collect(rules: { pattern: RegExp; headers: [string, string][] }[], urlPath: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const rule of rules) {
    if (!rule.pattern.test(urlPath)) continue;
    for (const [key, value] of rule.headers) found.set(key.toLowerCase(), [...(found.get(key.toLowerCase()) ?? []), value]);
  }
  return found;
}

const TWENTY_CACHE_YAML = [
  'cache:',
  '  maxAge: 100',
  '  staleRevalidate: 200',
  '  manifest: { maxAge: 10 }',
  '  catalog: { maxAge: 20 }',
  '  meta: { maxAge: 30, staleError: 300 }',
  '  stream: { maxAge: 40 }',
  '  subtitles: { maxAge: 50 }',
  '  addon_catalog: { maxAge: 60 }',
].join('\n');

/** 20 catalogs of four types, each with its own genres, and a cache override for every resource. */
function twentyCatalogs(): Record<string, string> {
  const types = ['movie', 'series', 'channel', 'tv'];
  const catalogs = Array.from({ length: 20 }, (_, i) => {
    const type = types[i % types.length]!;
    return `  - { id: c${i}, type: ${type}, name: Catalog ${i}, genres: [G${i}a, G${i}b], items: listed }`;
  });
  const items = Array.from({ length: 20 }, (_, i) => {
    const type = types[i % types.length]!;
    return `- { id: "x:${i}", type: ${type}, name: Item ${i}, catalogs: [c${i}], genres: [G${i}a], streams: [{ url: "https://example.org/${i}.mp4" }] }`;
  });
  return {
    'addon.yaml': addonYaml(`baseUrl: https://example.org/addon/\n${TWENTY_CACHE_YAML}\ncatalogs:\n${catalogs.join('\n')}\n`),
    'items.yaml': `${items.join('\n')}\n`,
  };
}

async function buildTwenty(hosts?: Parameters<typeof build>[0]['hosts']) {
  const out = await tempDir();
  const result = await build({ contentDir: await contentDir(twentyCatalogs()), outDir: out, ...(hosts ? { hosts } : {}) });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(result.ok).toBe(true);
  return { out, s3: `${out}-s3`, result };
}

/** Request paths of every output file (decoded, as the host matches them) plus a subtitles request with extras. */
async function requestPaths(out: string): Promise<string[]> {
  const files = [...(await readTree(out)).keys()].map((f) => `/${f}`);
  return [...files, '/subtitles/movie/x:0/filename=a.mp4&videoSize=1.json', '/'];
}

// The twenty-catalog addon's `cache`, by hand: defaults maxAge 100 and staleRevalidate 200 (no
// staleError), each resource overriding maxAge, meta also adding staleError.
const TWENTY_CACHE: Record<string, string> = {
  manifest: 'max-age=10, stale-while-revalidate=200, public',
  catalog: 'max-age=20, stale-while-revalidate=200, public',
  meta: 'max-age=30, stale-while-revalidate=200, stale-if-error=300, public',
  stream: 'max-age=40, stale-while-revalidate=200, public',
  subtitles: 'max-age=50, stale-while-revalidate=200, public',
  addon_catalog: 'max-age=60, stale-while-revalidate=200, public',
  assets: 'max-age=100, stale-while-revalidate=200, public',
};

describe('_headers and _redirects', () => {
  it("stay far under 100 header rules (Cloudflare Pages' limit) for an addon with 20 catalogs", async () => {
    const { out, result } = await buildTwenty();
    expect(result.content!.catalogs).toHaveLength(20);
    const rules = parseHeadersFile(await readFile(path.join(out, '_headers'), 'utf8'));
    expect(rules.length).toBeLessThan(100);
    // The rules are per resource, not per catalog or genre: as many as for a one-catalog addon.
    const one = await tempDir();
    const oneCatalog = addonYaml(`${TWENTY_CACHE_YAML}\ncatalogs:\n  - { id: a, type: movie, name: A }\n`);
    expect((await build({ contentDir: await contentDir({ 'addon.yaml': oneCatalog, 'm.yaml': movies(1) }), outDir: one })).ok).toBe(true);
    expect(rules.length).toBe(parseHeadersFile(await readFile(path.join(one, '_headers'), 'utf8')).length);
    // And every line is one that Cloudflare accepts (at most 2000 characters).
    for (const line of (await readFile(path.join(out, '_headers'), 'utf8')).split('\n')) expect(line.length).toBeLessThan(2000);
  });

  it('never set one header twice for a path (Cloudflare and Netlify would join the values)', async () => {
    const { out } = await buildTwenty();
    const rules = parseHeadersFile(await readFile(path.join(out, '_headers'), 'utf8')).map((r) => ({ ...r, pattern: headersPattern(r.source) }));
    for (const urlPath of await requestPaths(out)) {
      for (const [key, values] of collect(rules, urlPath)) expect(values, `${urlPath} ${key}`).toHaveLength(1);
    }
  });

  it('give each resource CORS, its JSON type and its own Cache-Control', async () => {
    const { out, result } = await buildTwenty();
    const rules = parseHeadersFile(await readFile(path.join(out, '_headers'), 'utf8')).map((r) => ({ ...r, pattern: headersPattern(r.source) }));
    const model = headerRules(result.content!);
    const cases: [string, string][] = [
      ['/manifest.json', 'manifest'],
      ['/catalog/movie/c0.json', 'catalog'],
      ['/catalog/movie/c0/genre=G0a.json', 'catalog'],
      ['/meta/movie/x:0.json', 'meta'],
      ['/stream/series/x:1.json', 'stream'],
      ['/subtitles/movie/x:0.json', 'subtitles'],
      ['/subtitles/movie/x:0/filename=a.mp4&videoSize=1.json', 'subtitles'],
      ['/assets/images/logo.png', 'assets'],
    ];
    for (const [urlPath, resource] of cases) {
      const headers = collect(rules, urlPath);
      expect(headers.get('access-control-allow-origin'), urlPath).toEqual(['*']);
      expect(headers.get('cache-control'), urlPath).toEqual([TWENTY_CACHE[resource]]);
      if (resource !== 'assets') expect(headers.get('content-type'), urlPath).toEqual([JSON_TYPE]);
      // headersFor (what `serve` answers with) says the same as the file.
      expect(headersFor(model, urlPath)['Cache-Control'], urlPath).toBe(TWENTY_CACHE[resource]);
    }
    // Pages that are not JSON get no JSON type and no resource cache.
    expect(collect(rules, '/index.html').get('content-type')).toBeUndefined();
    expect(collect(rules, '/index.html').get('cache-control')).toBeUndefined();
  });

  it("rewrite subtitles requests with extras to the video's subtitles file (status 200: the URL stays)", async () => {
    const { out } = await buildTwenty();
    const lines = (await readFile(path.join(out, '_redirects'), 'utf8')).split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(lines).toEqual(['/subtitles/:type/:id/* /subtitles/:type/:id.json 200']);
  });

  it('write no Cache-Control when addon.yaml has no cache settings, but still CORS', async () => {
    const out = await tempDir();
    await build({
      contentDir: await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: a, type: movie, name: A }\n'), 'm.yaml': movies(1) }),
      outDir: out,
    });
    const text = await readFile(path.join(out, '_headers'), 'utf8');
    expect(text).not.toMatch(/cache-control/i);
    const rules = parseHeadersFile(text).map((r) => ({ ...r, pattern: headersPattern(r.source) }));
    expect(collect(rules, '/manifest.json').get('access-control-allow-origin')).toEqual(['*']);
  });
});

describe('vercel.json', () => {
  it('parses and gives every path the same headers as _headers, with the subtitles rewrite', async () => {
    const { out } = await buildTwenty();
    const vercel = JSON.parse(await readFile(path.join(out, 'vercel.json'), 'utf8')) as {
      headers: { source: string; headers: { key: string; value: string }[] }[];
      rewrites: { source: string; destination: string }[];
    };
    const vercelRules = vercel.headers.map((r) => ({
      pattern: vercelPattern(r.source),
      headers: r.headers.map((h): [string, string] => [h.key, h.value]),
    }));
    const headersRules = parseHeadersFile(await readFile(path.join(out, '_headers'), 'utf8')).map((r) => ({
      ...r,
      pattern: headersPattern(r.source),
    }));
    for (const urlPath of await requestPaths(out)) {
      expect(collect(vercelRules, urlPath), urlPath).toEqual(collect(headersRules, urlPath));
    }
    expect(vercel.rewrites).toEqual([{ source: '/subtitles/:type/:id/:extra*', destination: '/subtitles/:type/:id.json' }]);
  });
});

describe('the S3 folder', () => {
  it('has a cors.json that allows GET and HEAD from any origin', async () => {
    const { s3 } = await buildTwenty(['s3']);
    const cors = JSON.parse(await readFile(path.join(s3, 'cors.json'), 'utf8')) as {
      CORSRules: { AllowedOrigins: string[]; AllowedMethods: string[] }[];
    };
    expect(cors.CORSRules).toHaveLength(1);
    expect(cors.CORSRules[0]!.AllowedOrigins).toEqual(['*']);
    expect([...cors.CORSRules[0]!.AllowedMethods].sort()).toEqual(['GET', 'HEAD']);
  });

  it('has an upload.sh that passes `sh -n` and uploads each resource with its Content-Type and Cache-Control', async () => {
    const { out, s3 } = await buildTwenty(['s3']);
    const script = path.join(s3, 'upload.sh');
    execFileSync('sh', ['-n', script]);

    // Run it against a stand-in `aws` that records its arguments, one call per line, NUL-separated.
    const bin = await tempDir();
    const calls = path.join(bin, 'calls');
    await writeFile(path.join(bin, 'aws'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${calls}'\necho >> '${calls}'\n`);
    await chmod(path.join(bin, 'aws'), 0o755);
    execFileSync('sh', [script], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BUCKET: 'my-bucket', PREFIX: 'addon/', ENDPOINT_URL: 'https://r2.example.org' },
    });
    const syncs = (await readFile(calls, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\0').slice(0, -1));

    const option = (args: string[], name: string) => args.flatMap((a, i) => (a === name ? [args[i + 1]!] : []));
    for (const call of syncs) {
      // ENDPOINT_URL, for another S3-compatible service, goes to every call.
      expect(call.slice(0, 2)).toEqual(['--endpoint-url', 'https://r2.example.org']);
      const args = call.slice(2);
      expect(args.slice(0, 2)).toEqual(['s3', 'sync']);
      // The source is the output folder, seen from the script's own folder.
      expect(path.resolve(args[2]!)).toBe(path.resolve(out));
      expect(args[3]).toBe('s3://my-bucket/addon/');
    }
    const resources: [string, string][] = [
      ['manifest.json', 'manifest'],
      ['catalog/*', 'catalog'],
      ['meta/*', 'meta'],
      ['stream/*', 'stream'],
      ['subtitles/*', 'subtitles'],
      ['addon_catalog/*', 'addon_catalog'],
    ];
    for (const [include, resource] of resources) {
      const pass = syncs.find((args) => option(args, '--include').includes(include));
      expect(pass, include).toBeDefined();
      // A resource folder's 404.html (for Cloudflare Pages) is not a JSON object of the addon.
      expect(option(pass!, '--exclude'), include).toEqual(include.endsWith('/*') ? ['*', include.replace('*', '404.html')] : ['*']);
      expect(option(pass!, '--content-type'), include).toEqual([JSON_TYPE]);
      expect(option(pass!, '--cache-control'), include).toEqual([TWENTY_CACHE[resource]]);
    }
    // The rest (assets, pages) in one last pass that leaves out the JSON and the rule files.
    const rest = syncs.filter((args) => option(args, '--include').length === 0);
    expect(rest).toHaveLength(1);
    expect(option(rest[0]!, '--exclude')).toEqual(
      expect.arrayContaining([...resources.map(([p]) => p), '.addon-gen.json', '_headers', '_redirects', 'vercel.json']),
    );
    expect(option(rest[0]!, '--cache-control')).toEqual([TWENTY_CACHE.assets]);
    expect(syncs).toHaveLength(resources.length + 1);
  });

  it('takes an output folder whose name holds quotes, $(…) and backquotes as a name, not as shell', async () => {
    const parent = await tempDir();
    const out = path.join(parent, `d $(touch PWNED) \`touch TICKED\` "q'`);
    const result = await build({ contentDir: await contentDir(twentyCatalogs()), outDir: out, hosts: ['s3'] });
    expect(result.ok).toBe(true);
    const script = path.join(`${out}-s3`, 'upload.sh');
    execFileSync('sh', ['-n', script]);
    const bin = await tempDir();
    const calls = path.join(bin, 'calls');
    await writeFile(path.join(bin, 'aws'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${calls}'\necho >> '${calls}'\n`);
    await chmod(path.join(bin, 'aws'), 0o755);
    execFileSync('sh', [script], { cwd: parent, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BUCKET: 'b' } });
    const sources = (await readFile(calls, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\0')[2]!);
    expect(sources).toHaveLength(7);
    for (const source of sources) expect(path.resolve(parent, source)).toBe(out);
    expect(existsSync(path.join(parent, 'PWNED'))).toBe(false);
    expect(existsSync(path.join(parent, 'TICKED'))).toBe(false);
  });

  it('refuses to run without BUCKET', async () => {
    const { s3 } = await buildTwenty(['s3']);
    const { BUCKET: _, ...env } = process.env;
    expect(() => execFileSync('sh', [path.join(s3, 'upload.sh')], { env, stdio: 'pipe' })).toThrow(/set BUCKET/);
  });
});

describe('--host', () => {
  const exists = (file: string) =>
    stat(file).then(
      () => true,
      () => false,
    );
  const RULE_FILES = ['_headers', '_redirects', 'vercel.json', '.nojekyll'];

  it.each([
    [['vercel'], ['vercel.json'], false],
    [['cloudflare'], ['_headers', '_redirects'], false],
    [['netlify'], ['_headers', '_redirects'], false],
    [['github-pages'], ['.nojekyll'], false],
    [['s3'], [], true],
    [undefined, RULE_FILES, true],
  ] as const)('%j writes only %j (S3 folder: %s)', async (hosts, files, s3Folder) => {
    const { out, s3 } = await buildTwenty(hosts);
    for (const file of RULE_FILES) expect(await exists(path.join(out, file)), file).toBe((files as readonly string[]).includes(file));
    expect(await exists(path.join(s3, 'upload.sh'))).toBe(s3Folder);
    expect(await exists(path.join(s3, 'cors.json'))).toBe(s3Folder);
    // The S3 files never land in the published tree.
    expect(await exists(path.join(out, 'upload.sh'))).toBe(false);
    expect(await exists(path.join(out, 'cors.json'))).toBe(false);
    // The addon itself is the same whatever the host.
    expect(await exists(path.join(out, 'manifest.json'))).toBe(true);
  });

  it('removes the rule files of hosts no longer chosen on the next build', async () => {
    const dir = await contentDir(twentyCatalogs());
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    expect(await exists(path.join(out, '_headers'))).toBe(true);
    await build({ contentDir: dir, outDir: out, hosts: ['vercel'] });
    for (const file of RULE_FILES) expect(await exists(path.join(out, file)), file).toBe(file === 'vercel.json');
  });
});
