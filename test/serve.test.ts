// `addon-gen serve`: the routing rules as a pure function, then every rule over real HTTP on
// 127.0.0.1 (headers, extras, empty lists, errors), --dir, --watch and the CLI. Attacks (traversal,
// malformed HTTP, load) are in serve-security.test.ts.
import { existsSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import { run } from '../src/cli/index.js';
import { headerRules, renderHeadersFile } from '../src/hosts/index.js';
import { parseHeadersFile, route, startServer, type AddonServer } from '../src/serve/index.js';
import { ServedTrees, watchFolders } from '../src/serve/watch.js';
import { createAddonServer, readManifest, type Tree } from '../src/serve/http.js';
import { linkOutput, stateFileOf } from '../src/write/index.js';
import { addonYaml, contentDir, movies, readTree, tempDir } from './support/content.js';

// 250 movies t:0000…t:0249 in one catalog (even ones Action and Science Fiction, odd ones Drama),
// a two-episode series whose first episode has subtitles, a local logo, per-resource cache settings.
const FILES: Record<string, string | Buffer> = {
  'addon.yaml': addonYaml(
    [
      'logo: logo.png',
      'cache:',
      '  maxAge: 3600',
      '  staleRevalidate: 14400',
      '  manifest: { maxAge: 600 }',
      '  meta: { maxAge: 86400, staleError: 5 }',
      'catalogs:',
      '  - { id: films, type: movie, name: Films, genres: auto }',
      '  - { id: shows, type: series, name: Shows }',
      '',
    ].join('\n'),
  ),
  'movies.yaml': movies(250, (i) => (i % 2 === 0 ? ['Action', 'Science Fiction'] : ['Drama'])),
  'series.yaml': [
    'id: "s:show"',
    'type: series',
    'name: Show',
    'videos:',
    '  - { season: 1, episode: 1, streams: [{ url: "https://example.org/e1.mp4" }], subtitles: [{ lang: eng, url: e1.srt }] }',
    '  - { season: 1, episode: 2, streams: [{ url: "https://example.org/e2.mp4" }] }',
    '',
  ].join('\n'),
  'e1.srt': '1\n00:00:01,000 --> 00:00:02,000\nHello\n',
  'logo.png': Buffer.from('89504e470d0a1a0a', 'hex'),
};

const CACHE = {
  manifest: 'max-age=600, stale-while-revalidate=14400, public',
  meta: 'max-age=86400, stale-while-revalidate=14400, stale-if-error=5, public',
  other: 'max-age=3600, stale-while-revalidate=14400, public',
};
const JSON_TYPE = 'application/json; charset=utf-8';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with the path sent exactly as written (fetch would normalize `..` and `\`). */
function get(base: string, rawPath: string, method = 'GET'): Promise<Reply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: rawPath, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (reply: Reply) => JSON.parse(reply.text) as Record<string, unknown>;
const ids = (reply: Reply) => (json(reply).metas as { id: string }[]).map((m) => m.id);

function expectCors(reply: Reply) {
  expect(reply.headers['access-control-allow-origin']).toBe('*');
  expect(reply.headers['access-control-allow-headers']).toBe('*');
}

function expectJsonError(reply: Reply, status: number) {
  expect(reply.status, reply.text).toBe(status);
  expectCors(reply);
  expect(reply.headers['content-type']).toBe(JSON_TYPE);
  const body = json(reply);
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error).toBe('string');
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A folder that outlives single tests (content.ts removes its folders after each test). */
async function writeFolder(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-serve-test-'));
  for (const [relative, data] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await writeFile(path.join(dir, relative), data);
  }
  return dir;
}

// ---------------------------------------------------------------------------------------------

describe('route', () => {
  const r = (url: string, method = 'GET') => route(method, url);

  it('answers preflights, refuses other methods and overlong URLs', () => {
    expect(r('/anything', 'OPTIONS')).toEqual({ kind: 'preflight' });
    expect(r('/manifest.json', 'POST')).toMatchObject({ kind: 'error', status: 405 });
    expect(r(`/stream/movie/${'x'.repeat(9000)}.json`)).toMatchObject({ kind: 'error', status: 414 });
  });

  it('looks a request up as the file of its decoded path, as static hosts do, and nothing else', () => {
    expect(r('/catalog/movie/films/skip=100&genre=Science%20Fiction.json')).toEqual({
      kind: 'file',
      paths: ['catalog/movie/films/skip=100&genre=Science Fiction.json', 'catalog/movie/films/skip=100&genre=Science Fiction.json/index.html'],
      ifMissing: { kind: 'error', status: 404, message: 'not found: /catalog/movie/films/skip=100&genre=Science Fiction.json' },
    });
    // No `+` for a space, no reordering, no page computed from a skip between pages.
    expect(r('/catalog/movie/films/genre=Science+Fiction.json')).toMatchObject({
      paths: ['catalog/movie/films/genre=Science+Fiction.json', expect.anything()],
    });
    expect(r('/catalog/movie/films/skip=150.json')).toMatchObject({ paths: ['catalog/movie/films/skip=150.json', expect.anything()] });
    expect(r('/stream/movie/t%3A1/filename=a.mkv.json')).toMatchObject({ paths: ['stream/movie/t:1/filename=a.mkv.json', expect.anything()] });
  });

  it("rewrites subtitles requests with extras onto the id's file only when the host does", () => {
    const request = '/subtitles/movie/t%3A1/filename=a%26b.mkv&videoSize=12.json';
    expect(r(request)).toMatchObject({ kind: 'file', paths: ['subtitles/movie/t:1/filename=a&b.mkv&videoSize=12.json', expect.anything()] });
    expect(route('GET', request, { rewrites: true })).toMatchObject({
      kind: 'file',
      paths: ['subtitles/movie/t:1.json'],
      ifMissing: { status: 404 },
    });
    expect(route('GET', '/repo/subtitles/movie/t%3A1/filename=a.json', { basePath: '/repo/', rewrites: true })).toMatchObject({
      paths: ['subtitles/movie/t:1.json'],
    });
    // The extras as they come: a file name with a `/` in it is rewritten too, as the hosts' splat takes it.
    expect(route('GET', '/subtitles/movie/t%3A1/filename=dir%2Fa.mkv&videoSize=12.json', { rewrites: true })).toMatchObject({
      kind: 'file',
      paths: ['subtitles/movie/t:1.json'],
    });
    expect(route('GET', '/films%3D1/subtitles/movie/t%3A1/filename=dir%2Fa.mkv.json', { rewrites: true, configured: true })).toMatchObject({
      paths: ['films=1/subtitles/movie/t:1.json'],
    });
    // Not a name for its type or id: refused as before.
    expect(route('GET', '/subtitles/movie/a%2Fb/filename=a.json', { rewrites: true })).toMatchObject({ kind: 'error', status: 400 });
    // Only that rule: other resources, and subtitles without extras, are files as they are.
    expect(route('GET', '/subtitles/movie/t%3A1.json', { rewrites: true })).toMatchObject({ paths: ['subtitles/movie/t:1.json', expect.anything()] });
    expect(route('GET', '/stream/movie/t%3A1/filename=a.json', { rewrites: true })).toMatchObject({
      paths: ['stream/movie/t:1/filename=a.json', expect.anything()],
    });
  });

  it('refuses names that are not file names instead of resolving them', () => {
    for (const url of ['/%2e%2e/x', '/a/../x', '/stream/movie/a%2Fb.json', '/%E0%A4%A.json', '/x%00.json', '/a%5cb']) {
      expect(r(url), url).toMatchObject({ kind: 'error', status: 400 });
    }
    expect(r('/')).toMatchObject({ kind: 'file', paths: ['index.html'] });
    expect(r('/configure')).toMatchObject({ kind: 'file', paths: ['configure', 'configure/index.html'] });
    expect(r('/.addon-gen.json')).toMatchObject({ kind: 'error', status: 404 });
    // Rule files the hosts read and do not publish.
    expect(r('/_headers')).toMatchObject({ kind: 'error', status: 404 });
    expect(r('/_redirects')).toMatchObject({ kind: 'error', status: 404 });
  });

  it('reads an absolute-form target by its path, before any `..` in it is resolved', () => {
    expect(r('http://example.org/manifest.json')).toMatchObject({ kind: 'file', paths: ['manifest.json', 'manifest.json/index.html'] });
    expect(r('HTTP://example.org')).toMatchObject({ kind: 'file', paths: ['index.html'] });
    expect(r('http://example.org?x=1')).toMatchObject({ kind: 'file', paths: ['index.html'] });
    expect(r('http://example.org/stream/movie/t%3A1.json')).toMatchObject({
      kind: 'file',
      paths: ['stream/movie/t:1.json', 'stream/movie/t:1.json/index.html'],
    });
    for (const url of ['http://evil/../x', 'http://evil/%2e%2e/x', 'http://evil//x']) {
      expect(r(url), url).toMatchObject({ kind: 'error', status: 400 });
    }
  });
});

describe('parseHeadersFile', () => {
  it('reads back the rules renderHeadersFile wrote', async () => {
    const result = await build({ contentDir: await contentDir(FILES), baseUrl: 'https://example.org/' });
    const rules = headerRules(result.content!);
    expect(parseHeadersFile(renderHeadersFile(rules))).toEqual(rules);
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve over HTTP', () => {
  let content: string;
  let server: AddonServer;
  let base: string;
  const builds: BuildResult[] = [];

  beforeAll(async () => {
    content = await writeFolder(FILES);
    server = await startServer({ contentDir: content, port: 0, onBuild: (b) => builds.push(b) });
    base = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await rm(content, { recursive: true, force: true });
  });

  it('builds for the address it listens on', async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.manifestUrl).toBe(`${base}manifest.json`);
    expect(builds.map((b) => b.ok)).toEqual([true]);
    const manifest = json(await get(base, '/manifest.json'));
    expect(manifest.logo).toBe(`${base}assets/logo.png`);
  });

  it('sends the host rules’ headers: CORS everywhere, JSON type, Cache-Control per resource', async () => {
    const expected: [string, string | undefined, string | undefined][] = [
      ['/manifest.json', JSON_TYPE, CACHE.manifest],
      ['/catalog/movie/films.json', JSON_TYPE, CACHE.other],
      ['/meta/movie/t%3A0001.json', JSON_TYPE, CACHE.meta],
      ['/stream/series/s%3Ashow%3A1%3A1.json', JSON_TYPE, CACHE.other],
      ['/subtitles/series/s%3Ashow%3A1%3A1.json', JSON_TYPE, CACHE.other],
      ['/assets/logo.png', 'image/png', CACHE.other],
      ['/', 'text/html; charset=utf-8', undefined],
    ];
    for (const [url, type, cache] of expected) {
      for (const method of ['GET', 'HEAD']) {
        const reply = await get(base, url, method);
        expect(reply.status, `${method} ${url}`).toBe(200);
        expectCors(reply);
        expect(reply.headers['content-type'], url).toBe(type);
        expect(reply.headers['cache-control'], url).toBe(cache);
        if (method === 'HEAD') expect(reply.text).toBe('');
      }
    }
    expect((await get(base, '/')).text).toMatch(/<html/i);
  });

  it('answers OPTIONS with 204 and the methods, other methods with 405 JSON', async () => {
    for (const url of ['/manifest.json', '/catalog/movie/nope.json', '/%2e%2e/x']) {
      const preflight = await get(base, url, 'OPTIONS');
      expect(preflight.status).toBe(204);
      expectCors(preflight);
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect(preflight.text).toBe('');
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await get(base, '/manifest.json', method);
      expectJsonError(refused, 405);
      expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('answers the pages the tree holds, in both orders of extras, and 404 for any other, as static hosts do', async () => {
    const canonical = await get(base, '/catalog/movie/films/skip=100&genre=Science%20Fiction.json');
    expect(canonical.status).toBe(200);
    // Science Fiction holds the 125 even movies; its second page starts at the 101st, t:0200.
    expect(ids(canonical)).toHaveLength(25);
    expect(ids(canonical)[0]).toBe('t:0200');
    const other = await get(base, '/catalog/movie/films/genre=Science%20Fiction&skip=100.json');
    expect(other.text).toBe(canonical.text);
    expect(other.headers['cache-control']).toBe(CACHE.other);
    // The last page of a list is written, and empty: the client stops there.
    expect(json(await get(base, '/catalog/movie/films/skip=250.json')).metas).toEqual([]);
    expect(ids(await get(base, '/catalog/movie/films/genre=Drama.json'))[0]).toBe('t:0001');
    // A host computes nothing: other spellings, unknown extras, a skip between pages, an unknown
    // genre or id are files no build writes. A preview that answered them would hide a bug.
    for (const url of [
      '/catalog/movie/films/genre=Science+Fiction&skip=100.json',
      '/catalog/movie/films/foo=bar&skip=100&genre=Science%20Fiction.json',
      '/catalog/movie/films/skip=100&genre=Science%20Fiction&genre=Drama.json',
      '/catalog/movie/films/skip=150.json',
      '/catalog/movie/films/skip=0.json',
      '/catalog/movie/films/genre=Horror.json',
      '/catalog/movie/films/skip=-1.json',
      '/stream/movie/t%3A9999.json',
      '/stream/series/s%3Ashow%3A1%3A1/bingeGroup=x.json',
      '/catalog/movie/nope.json',
      '/catalog/tv/films.json',
      '/subtitles/movie/t%3A0001.json',
      '/meta/movie/t%3A9999.json',
      '/addon_catalog/movie/x.json',
      '/stream/movie.json',
      '/stream/movie/a/b/c.json',
      '/nothing-here.html',
      '/.addon-gen.json',
    ]) {
      expectJsonError(await get(base, url), 404);
    }
    expect(json(await get(base, '/catalog/tv/films.json')).error).toBe('not found: /catalog/tv/films.json');
    expect((await get(base, '/catalog/movie/nope.json')).headers['cache-control']).toBe('no-store');
  });

  it('serves the subtitles of every video of a type with subtitles, an empty list for those without', async () => {
    const file = await get(base, '/subtitles/series/s%3Ashow%3A1%3A1.json');
    expect(json(file).subtitles).toEqual([{ id: 's:show:1:1:eng', lang: 'eng', url: `${base}assets/e1.srt` }]);
    const none = await get(base, '/subtitles/series/s%3Ashow%3A1%3A2.json');
    expect(none.status).toBe(200);
    expect(json(none).subtitles).toEqual([]);
    expect(none.headers['cache-control']).toBe(CACHE.other);
  });

  it('rewrites subtitles requests with the player’s extras onto the video’s file only --like a host that does', async () => {
    const extras = ['filename=Show.S01E01.mkv&videoSize=187654321&videoHash=8e245d9679d31e12', 'videoSize=1&filename=a%20b%26c%3Dd.mkv'];
    // GitHub Pages and S3 (the default) serve files only.
    for (const extra of extras) expectJsonError(await get(base, `/subtitles/series/s%3Ashow%3A1%3A1/${extra}.json`), 404);
    const like = await startServer({ contentDir: content, port: 0, like: 'cloudflare' });
    try {
      const file = await get(like.url, '/subtitles/series/s%3Ashow%3A1%3A1.json');
      for (const extra of extras) {
        const reply = await get(like.url, `/subtitles/series/s%3Ashow%3A1%3A1/${extra}.json`);
        expect(reply.status).toBe(200);
        expect(reply.text).toBe(file.text);
        expect(reply.headers['cache-control']).toBe(CACHE.other);
      }
    } finally {
      await like.close();
    }
  });

  it('answers 400 for malformed paths and encodings, 414 for overlong URLs', async () => {
    for (const url of [
      '/meta/movie/%E0%A4%A.json',
      '/meta/movie/%zz.json',
      '/catalog/movie/films/genre=%E0%A4%A.json',
      '/catalog//films.json',
      '/x%00.json',
    ]) {
      expectJsonError(await get(base, url), 400);
    }
    expectJsonError(await get(base, `/stream/movie/${'a'.repeat(8200)}.json`), 414);
  });

  it('answers under the base URL’s path, for an addon built for a sub-path', async () => {
    const sub = await startServer({ contentDir: content, port: 0, baseUrl: 'https://example.org/repo' });
    try {
      expect(sub.manifestUrl).toBe('https://example.org/repo/manifest.json');
      const reply = await get(sub.url, '/repo/stream/series/s%3Ashow%3A1%3A1.json');
      expect(reply.status).toBe(200);
      expect(json(await get(sub.url, '/repo/manifest.json')).logo).toBe('https://example.org/repo/assets/logo.png');
      expect((await get(sub.url, '/manifest.json')).status).toBe(200);
    } finally {
      await sub.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve --dir', () => {
  const servers: AddonServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('serves a built tree with the Cache-Control of its _headers, as serving the content does', async () => {
    const dir = await contentDir(FILES);
    const dist = path.join(await tempDir(), 'dist');
    expect((await build({ contentDir: dir, outDir: dist, baseUrl: 'http://127.0.0.1:7000/' })).ok).toBe(true);
    const fromDir = await startServer({ dir: dist, port: 0 });
    const fromContent = await startServer({ contentDir: dir, port: 0, baseUrl: 'http://127.0.0.1:7000/' });
    servers.push(fromDir, fromContent);
    expect(fromDir.headerSource).toBe('_headers');
    for (const url of [
      '/manifest.json',
      '/catalog/movie/films/genre=Action&skip=110.json',
      '/meta/movie/t%3A0001.json',
      '/stream/movie/t%3A9999.json',
      '/subtitles/series/s%3Ashow%3A1%3A1/videoSize=1.json',
      '/assets/logo.png',
      '/catalog/tv/x.json',
    ]) {
      const [a, b] = await Promise.all([get(fromDir.url, url), get(fromContent.url, url)]);
      expect(a.status, url).toBe(b.status);
      expect(a.text, url).toBe(b.text);
      for (const header of ['content-type', 'cache-control', 'access-control-allow-origin', 'access-control-allow-headers']) {
        expect(a.headers[header], `${url} ${header}`).toBe(b.headers[header]);
      }
    }
  });

  it('without _headers, still sends CORS and the JSON type, and no Cache-Control', async () => {
    const dist = path.join(await tempDir(), 'dist');
    await build({ contentDir: await contentDir(FILES), outDir: dist, baseUrl: 'http://127.0.0.1:7000/', hosts: ['github-pages'] });
    const server = await startServer({ dir: dist, port: 0 });
    servers.push(server);
    expect(server.headerSource).toBe('none');
    const reply = await get(server.url, '/stream/movie/t%3A0001.json');
    expect(reply.status).toBe(200);
    expectCors(reply);
    expect(reply.headers['content-type']).toBe(JSON_TYPE);
    expect(reply.headers['cache-control']).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve --watch', () => {
  it('picks up edits, keeps the last good tree through a broken one, recovers when fixed', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'm.yaml': 'id: "w:1"\ntype: movie\nname: Before\n',
    });
    const builds: BuildResult[] = [];
    const server = await startServer({ contentDir: dir, port: 0, watch: true, debounceMs: 30, onBuild: (b) => builds.push(b) });
    const name = async () => (json(await get(server.url, '/meta/movie/w%3A1.json')).meta as { name: string }).name;
    try {
      expect(await name()).toBe('Before');

      await writeFile(path.join(dir, 'm.yaml'), 'id: "w:1"\ntype: movie\nname: After\n');
      await waitFor(async () => (await name()) === 'After', 'the edit');

      // Broken YAML, then valid YAML with a field the format does not have: each build fails,
      // says why, and the last good tree stays served, manifest, catalog and meta.
      for (const [text, code] of [
        ['id: "w:1"\ntype: movie\nname: [Broken\n', 'yaml-syntax'],
        ['id: "w:1"\ntype: movie\nname: Broken\nrelased: 2001-01-01\n', 'unknown-field'],
      ]) {
        const failedBefore = builds.filter((b) => !b.ok).length;
        await writeFile(path.join(dir, 'm.yaml'), text!);
        await waitFor(() => builds.filter((b) => !b.ok).length > failedBefore, `the failed build (${code})`);
        expect(builds.at(-1)!.diagnostics[0]).toMatchObject({ code });
        expect(await name()).toBe('After');
        expect((await get(server.url, '/manifest.json')).status).toBe(200);
        expect((await get(server.url, '/catalog/movie/c.json')).status).toBe(200);
      }

      await writeFile(path.join(dir, 'm.yaml'), 'id: "w:1"\ntype: movie\nname: Fixed\n');
      await waitFor(async () => (await name()) === 'Fixed', 'the fix');

      // Editors that save by renaming a new file over the old one, then edits to that same file.
      await writeFile(path.join(dir, '.m.yaml.tmp'), 'id: "w:1"\ntype: movie\nname: Renamed\n');
      await rename(path.join(dir, '.m.yaml.tmp'), path.join(dir, 'm.yaml'));
      await waitFor(async () => (await name()) === 'Renamed', 'the save by rename');
      await appendFile(path.join(dir, 'm.yaml'), 'description: Appended\n');
      await waitFor(
        async () => (json(await get(server.url, '/meta/movie/w%3A1.json')).meta as { description?: string }).description === 'Appended',
        'the edit after it',
      );

      // A new folder, then a file in it.
      await mkdir(path.join(dir, 'more'));
      await writeFile(path.join(dir, 'more', 'n.yaml'), 'id: "w:2"\ntype: movie\nname: New\n');
      await waitFor(async () => (await get(server.url, '/meta/movie/w%3A2.json')).status === 200, 'the new folder');
      await writeFile(path.join(dir, 'more', 'n.yaml'), 'id: "w:2"\ntype: movie\nname: Newer\n');
      await waitFor(async () => (await get(server.url, '/meta/movie/w%3A2.json')).text.includes('Newer'), 'the edit in the new folder');
    } finally {
      await server.close();
    }
  });

  it("answers an edit's item files once the content is checked, before the rebuild ends; not an edit that changes more", async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C, genres: auto }\n'),
      'm.yaml': movies(30, () => ['Drama']),
      'w.yaml': 'id: "w:1"\ntype: movie\nname: Before\ngenres: [Drama]\n',
    });
    const events: string[] = [];
    let asked: Promise<Reply> | undefined;
    let askedPage: Promise<Reply> | undefined;
    // What the added film's meta answered when the server reported it answered early: once added, once removed.
    const askedW2: Promise<Reply>[] = [];
    // And those of a film in a file of its own, added, then deleted.
    const askedW3: Promise<Reply>[] = [];
    // The paths each rebuild told as answered missing.
    const removedEarly: string[][] = [];
    const server: AddonServer = await startServer({
      contentDir: dir,
      port: 0,
      watch: true,
      debounceMs: 30,
      onBuild: (result) => events.push(result.ok ? 'built' : 'failed'),
      onEarly: (paths, removed) => {
        events.push(`early: ${[...paths].sort().join(' ')}`);
        if (removed.length > 0) removedEarly.push([...removed].sort());
        // Asked at once: answered from the early files, or from the new tree should it be in by
        // then, which has the same bytes.
        if (paths.some((file) => file.startsWith('catalog/'))) askedPage = get(server.url, '/catalog/movie/c/genre=Drama.json');
        if (paths.some((file) => file.startsWith('meta/'))) asked = get(server.url, '/meta/movie/w%3A1.json');
        if (paths.includes('meta/movie/w:2.json')) askedW2.push(get(server.url, '/meta/movie/w%3A2.json'));
        if (paths.includes('meta/movie/w:3.json')) askedW3.push(get(server.url, '/meta/movie/w%3A3.json'));
      },
    });
    const rebuilt = async (count: number, text: string | null, file = 'w.yaml') => {
      await (text === null ? rm(path.join(dir, file)) : writeFile(path.join(dir, file), text));
      await waitFor(() => events.filter((event) => event === 'built').length === count, `rebuild ${count - 1}`);
      return readTree(server.root!);
    };
    try {
      const served = await readTree(server.root!);
      const tree = await rebuilt(2, 'id: "w:1"\ntype: movie\nname: After\ngenres: [Drama]\n');
      // Every file of the item, then every catalog page that lists it, and nothing else, before the
      // rebuild ended.
      const files = [...tree.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/w:1[./]/.test(file)).sort();
      expect(files).toContain('meta/movie/w:1.json');
      const pages = [...tree.keys()].filter((file) => file.startsWith('catalog/') && !tree.get(file)!.equals(served.get(file)!)).sort();
      expect(pages).toContain('catalog/movie/c/genre=Drama.json');
      expect(events).toEqual(['built', `early: ${files.join(' ')}`, `early: ${pages.join(' ')}`, 'built']);
      const reply = await asked!;
      expect((json(reply).meta as { name: string }).name).toBe('After');
      expect(reply.text).toBe(tree.get('meta/movie/w:1.json')!.toString());
      const page = await askedPage!;
      expect(page.text).toContain('"name":"After"');
      expect(page.text).toBe(tree.get('catalog/movie/c/genre=Drama.json')!.toString());

      // An edit saved while another file is broken: the build that fixes that file parses only
      // it, and still answers the edit's files early.
      const failures = async (count: number, file: string, text: string) => {
        await writeFile(path.join(dir, file), text);
        await waitFor(() => events.filter((event) => event === 'failed').length === count, `failure ${count}`);
      };
      await failures(1, 'm.yaml', `${movies(30, () => ['Drama'])}- [broken\n`);
      await failures(2, 'w.yaml', 'id: "w:1"\ntype: movie\nname: Again\ngenres: [Drama]\n');
      await writeFile(
        path.join(dir, 'm.yaml'),
        movies(30, () => ['Drama']),
      );
      await waitFor(() => events.filter((event) => event === 'built').length === 3, 'the fix');
      expect(events[6]).toMatch(/^early: .*meta\/movie\/w:1\.json/);
      expect((json(await asked!).meta as { name: string }).name).toBe('Again');

      // An id added: its meta is answered early, the catalog pages (which move) with the rebuild.
      const added = await rebuilt(4, 'id: "w:1"\ntype: movie\nname: After\ngenres: [Drama]\n---\nid: "w:2"\ntype: movie\nname: Added\n');
      const ofW = [...added.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/w:[12][./]/.test(file)).sort();
      expect(ofW).toContain('meta/movie/w:2.json');
      expect(events.slice(9)).toEqual([`early: ${ofW.join(' ')}`, 'built']);
      const reply2 = await askedW2[0]!;
      expect(reply2.status).toBe(200);
      expect(reply2.text).toBe(added.get('meta/movie/w:2.json')!.toString());
      // That id removed again: its files answer 404 early, as the rebuild's tree does.
      const removed = await rebuilt(5, 'id: "w:1"\ntype: movie\nname: After\ngenres: [Drama]\n');
      expect(removed.has('meta/movie/w:2.json')).toBe(false);
      expect(events.slice(11)).toEqual([`early: ${ofW.join(' ')}`, 'built']);
      const [gone, after] = [await askedW2[1]!, await get(server.url, '/meta/movie/w%3A2.json')];
      expect([gone.status, gone.text]).toEqual([404, after.text]);
      expect(after.status).toBe(404);
      // A film's file added, then deleted: its files answered early each time, the second time 404.
      const withW3 = await rebuilt(6, 'id: "w:3"\ntype: movie\nname: Third\ngenres: [Drama]\n', 'x.yaml');
      const ofW3 = [...withW3.keys()].filter((file) => /^(meta|stream|subtitles)\/movie\/w:3[./]/.test(file)).sort();
      expect(ofW3).toContain('meta/movie/w:3.json');
      await rebuilt(7, null, 'x.yaml');
      expect(events.slice(13)).toEqual([`early: ${ofW3.join(' ')}`, 'built', `early: ${ofW3.join(' ')}`, 'built']);
      expect((await askedW3[0]!).status).toBe(200);
      expect((await askedW3[1]!).status).toBe(404);
      expect(removedEarly).toEqual([ofW.filter((file) => !removed.has(file)), ofW3]);
      // A genre the catalog did not offer: the rebuild alone shows it.
      await rebuilt(8, 'id: "w:1"\ntype: movie\nname: After\ngenres: [Western]\n');
      expect(events.slice(17)).toEqual(['built']);
      expect((await get(server.url, '/meta/movie/w%3A2.json')).status).toBe(404);
      expect(json(await get(server.url, '/catalog/movie/c/genre=Western.json')).metas).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('never stops a build that answered nothing early: the first, or one whose edit only its end shows', () => {
    const trees = new ServedTrees({ headerSource: 'none' }, {});
    // Stale, with no tree served and nothing answered.
    expect(trees.rebuildOptions(() => true).stopBeforeWrite!()).toBe(false);
  });

  it('stops a rebuild that a newer save made stale once it answered all it changes, and serves those answers on', async () => {
    const w = (name: string, genres = 'Drama') => `id: "w:1"\ntype: movie\nname: ${name}\ngenres: [${genres}]\n`;
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C, genres: auto, sort: name }\n'),
      'm.yaml': movies(200, (i) => (i % 2 ? ['Drama'] : ['Drama', 'Comedy'])),
      'w.yaml': w('Before'),
    });
    const events: string[] = [];
    // Saved as soon as a rebuild has answered its item files, or its catalog pages, while it goes on.
    let next: { on: 'files' | 'pages'; text: string } | undefined;
    const server: AddonServer = await startServer({
      contentDir: dir,
      port: 0,
      watch: true,
      debounceMs: 30,
      onBuild: (result) => events.push(result.ok ? 'built' : 'failed'),
      onEarly: (paths) => {
        const answered = paths.some((file) => file.startsWith('catalog/')) ? 'pages' : 'files';
        events.push(answered);
        if (next?.on !== answered) return;
        writeFileSync(path.join(dir, 'w.yaml'), next.text);
        next = undefined;
      },
    });
    const name = async () => (json(await get(server.url, '/meta/movie/w%3A1.json')).meta as { name: string }).name;
    const page = async () => (await get(server.url, '/catalog/movie/c/skip=200.json')).text;
    const settled = async (last: string, what: string) => {
      await waitFor(() => events.at(-1) === last, what);
      // Long enough for a build that was not stopped to report.
      await new Promise((resolve) => setTimeout(resolve, 500));
    };
    try {
      // Names that keep it on the last page. The first rename's rebuild stops unreported: the one
      // after it builds the newer save.
      next = { on: 'pages', text: w('Zulu 2') };
      events.length = 0;
      await writeFile(path.join(dir, 'w.yaml'), w('Zulu 1'));
      await settled('built', 'the second save');
      expect(events).toEqual(['files', 'pages', 'files', 'pages', 'built']);
      expect(await name()).toBe('Zulu 2');

      // Then a broken save: the stopped rebuild's answers are what is served, its meta and pages.
      next = { on: 'pages', text: `${w('Zulu broken')}genres: [\n` };
      events.length = 0;
      await writeFile(path.join(dir, 'w.yaml'), w('Zulu 3'));
      await settled('failed', 'the broken save');
      expect(events).toEqual(['files', 'pages', 'failed']);
      expect(await name()).toBe('Zulu 3');
      expect(await page()).toContain('"name":"Zulu 3"');

      // Answered without its pages (the Comedy list one longer), a rebuild is not stopped: its
      // answers alone are no tree that a build writes.
      next = { on: 'files', text: `${w('Zulu broken')}genres: [\n` };
      events.length = 0;
      await writeFile(path.join(dir, 'w.yaml'), w('Zulu 4', 'Drama, Comedy'));
      await settled('failed', 'the broken save after it');
      expect(events).toEqual(['files', 'built', 'failed']);
      expect(await name()).toBe('Zulu 4');
      expect(await page()).toContain('"name":"Zulu 4"');

      // Fixed: built and served as ever.
      events.length = 0;
      await writeFile(path.join(dir, 'w.yaml'), w('Zulu 5'));
      await settled('built', 'the fix');
      expect(await name()).toBe('Zulu 5');
      expect(await page()).toContain('"name":"Zulu 5"');
    } finally {
      await server.close();
    }
  });

  it("answers a tree's early files with the headers of their paths, and the others from its folder", async () => {
    const out = await tempDir();
    const result = await build({ contentDir: await contentDir(FILES), outDir: out, hosts: [], baseUrl: 'http://127.0.0.1:7000/' });
    expect(result.ok).toBe(true);
    const early = Buffer.from('{"meta":{"id":"t:0001","type":"movie","name":"Early"}}');
    const tree: Tree = {
      root: out,
      manifest: (await readManifest(out, 'the build')).manifest,
      rules: headerRules(result.content!),
      rewrites: false,
      early: new Map([['meta/movie/t:0001.json', early]]),
    };
    const server = createAddonServer(() => ({ tree, basePath: '/' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const reply = await get(base, '/meta/movie/t%3A0001.json');
      expect(reply.status).toBe(200);
      expect(reply.text).toBe(early.toString());
      expectCors(reply);
      expect(reply.headers['content-type']).toBe(JSON_TYPE);
      expect(reply.headers['cache-control']).toBe(CACHE.meta);
      expect(reply.headers['content-length']).toBe(String(early.length));
      expect((await get(base, '/meta/movie/t%3A0001.json', 'HEAD')).text).toBe('');
      const other = await get(base, '/meta/movie/t%3A0002.json');
      expect(other.text).toBe(await readFile(path.join(out, 'meta/movie/t:0002.json'), 'utf8'));
      expect(other.headers['cache-control']).toBe(CACHE.meta);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('makes the second tree of hard links to the first, and a rebuild there leaves the served tree as it was', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'm.yaml': movies(30),
      'w.yaml': 'id: "w:1"\ntype: movie\nname: Before\n',
    });
    const server = await startServer({ contentDir: dir, port: 0, watch: true, debounceMs: 30 });
    const name = async () => (json(await get(server.url, '/meta/movie/w%3A1.json')).meta as { name: string }).name;
    const meta = 'meta/movie/w:1.json';
    try {
      const first = server.root!;
      const other = path.join(path.dirname(first), path.basename(first) === 'a' ? 'b' : 'a');
      const firstTree = await readTree(first);
      // The other tree: the same files, each the same file as the first tree's.
      await waitFor(async () => (await readTree(other).catch(() => new Map())).size === firstTree.size, 'the second tree');
      expect(await readTree(other)).toEqual(firstTree);
      expect((await stat(path.join(other, meta))).ino).toBe((await stat(path.join(first, meta))).ino);

      // Each rebuild writes the tree not served; the one served keeps every byte.
      await writeFile(path.join(dir, 'w.yaml'), 'id: "w:1"\ntype: movie\nname: After\n');
      // The edited meta is answered before the rebuild ends: then the other tree is swapped in.
      await waitFor(async () => (await name()) === 'After' && server.root === other, 'the edit');
      expect(await readTree(first)).toEqual(firstTree);
      const otherTree = await readTree(other);
      await writeFile(path.join(dir, 'w.yaml'), 'id: "w:1"\ntype: movie\nname: Again\n');
      await waitFor(async () => (await name()) === 'Again' && server.root === first, 'the second edit');
      expect(await readTree(other)).toEqual(otherTree);
      expect(JSON.parse((await readTree(first)).get(meta)!.toString()).meta.name).toBe('Again');
    } finally {
      await server.close();
    }
  });

  it('links a second tree only from a complete build into an empty folder, and removes what it made when stopped', async () => {
    // More files than one batch (512): both threads link.
    const dir = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'm.yaml': movies(400) });
    const out = path.join(await tempDir(), 'a');
    expect((await build({ contentDir: dir, outDir: out, hosts: [] })).ok).toBe(true);
    const to = path.join(path.dirname(out), 'b');
    expect(await linkOutput(out, to, AbortSignal.abort())).toBe(false);
    expect(existsSync(to)).toBe(false);
    expect(existsSync(stateFileOf(to))).toBe(false);
    expect(await linkOutput(out, to)).toBe(true);
    expect(await readTree(to)).toEqual(await readTree(out));
    expect(await readFile(stateFileOf(to))).toEqual(await readFile(stateFileOf(out)));
    // Not into a folder that holds anything: it is left as it is.
    const full = path.join(path.dirname(out), 'c');
    await mkdir(full);
    await writeFile(path.join(full, 'mine.txt'), 'mine');
    expect(await linkOutput(out, full)).toBe(false);
    expect([...(await readTree(full)).keys()]).toEqual(['mine.txt']);
    // A file of the record gone from the first tree, in the second batch: the thread that links it
    // fails, and the links made by both threads go.
    await rm(path.join(out, 'meta', 'movie', 't:0399.json'));
    const again = path.join(path.dirname(out), 'd');
    expect(await linkOutput(out, again)).toBe(false);
    expect(existsSync(again)).toBe(false);
    expect(existsSync(stateFileOf(again))).toBe(false);
  });

  it('stops linking when told to, with batches under way, and removes what it made', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'm.yaml': movies(2000) });
    const out = path.join(await tempDir(), 'a');
    expect((await build({ contentDir: dir, outDir: out, hosts: [] })).ok).toBe(true);
    const before = await readTree(out);
    const to = path.join(path.dirname(out), 'b');
    const stop = new AbortController();
    const linking = linkOutput(out, to, stop.signal);
    // The folder is made just before the first batches go to the threads: stopped as soon as it
    // is there, while the threads are still starting or linking.
    while (!existsSync(to)) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    expect(await linking).toBe(false);
    expect(existsSync(to)).toBe(false);
    expect(existsSync(stateFileOf(to))).toBe(false);
    expect(await readTree(out)).toEqual(before);
  });

  it('starts with broken content, answers 503, and serves once it is fixed', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\nbogus: 1\n') });
    const server = await startServer({ contentDir: dir, port: 0, watch: true, debounceMs: 30 });
    try {
      expect(server.manifest).toBeUndefined();
      expectJsonError(await get(server.url, '/manifest.json'), 503);
      await writeFile(path.join(dir, 'addon.yaml'), addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'));
      await waitFor(async () => (await get(server.url, '/manifest.json')).status === 200, 'the fix');
    } finally {
      await server.close();
    }
  });

  it('watches nothing once stopped, even a folder a sync was still walking to: the process can exit', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(), 'films/a.yaml': movies(1) });
    let changes = 0;
    const folders = watchFolders(dir, () => changes++);
    // Stopped while the walk that finds the folders is under way, as when a build starts just
    // before Ctrl-C: a watcher it made after would hold the process open.
    const syncing = folders.sync();
    folders.close();
    await syncing;
    await writeFile(path.join(dir, 'films', 'a.yaml'), movies(2));
    await writeFile(path.join(dir, 'b.yaml'), movies(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(changes).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('addon-gen serve', () => {
  function cli(argv: string[], signal?: AbortSignal) {
    const out = { stdout: '', stderr: '' };
    const status = run(argv, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), signal });
    return { out, status };
  }

  /** Once a `serve --watch` run by cli() has started: its base URL, and the name its meta of "w:1" has. */
  async function watchStarted(out: { stdout: string; stderr: string }) {
    await waitFor(() => out.stdout.includes('Ctrl-C') || out.stderr !== '', 'the start');
    const base = /manifest: (\S+)manifest\.json/.exec(out.stdout)![1]!;
    const name = async () => (json(await get(base, '/meta/movie/w%3A1.json')).meta as { name: string }).name;
    return { base, name };
  }

  it('prints the manifest URL and install links, serves, and stops cleanly on the signal', async () => {
    const controller = new AbortController();
    const { out, status } = cli(['serve', await contentDir(FILES), '--port', '0'], controller.signal);
    await waitFor(() => out.stdout.includes('Ctrl-C') || out.stderr !== '', 'the start');
    expect(out.stderr).toBe('');
    const manifestUrl = /manifest: (\S+)/.exec(out.stdout)![1]!;
    const port = new URL(manifestUrl).port;
    expect(manifestUrl).toBe(`http://127.0.0.1:${port}/manifest.json`);
    expect(out.stdout).toContain(`install:  stremio://127.0.0.1:${port}/manifest.json\n`);
    expect(out.stdout).toContain(`web:      https://web.stremio.com/#/addons?addon=http%3A%2F%2F127.0.0.1%3A${port}%2Fmanifest.json\n`);
    expect(out.stdout).toMatch(/^Serving Test Addon 1\.0\.0 at http:\/\/127\.0\.0\.1:\d+\//);
    expect(out.stdout).toContain(`page:     http://127.0.0.1:${port}/\n`);
    expect(out.stdout).toContain('answers as github-pages does: files only (--like cloudflare previews the subtitles rewrite)\n');
    expect((await get(manifestUrl, '/manifest.json')).status).toBe(200);

    controller.abort();
    expect(await status).toBe(0);
    expect(out.stdout).toMatch(/Stopped\.\n$/);
    await expect(get(manifestUrl, '/manifest.json')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('with --watch, reports each broken edit, keeps serving the last good build, and serves the fix', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'm.yaml': 'id: "w:1"\ntype: movie\nname: Before\n',
    });
    const controller = new AbortController();
    const { out, status } = cli(['serve', dir, '--watch', '--port', '0'], controller.signal);
    try {
      const { base, name } = await watchStarted(out);
      expect(await name()).toBe('Before');
      for (const [text, problem] of [
        ['id: "w:1"\ntype: movie\nname: [Broken\n', /m\.yaml:\d+:\d+: error\[yaml-syntax\]/],
        ['id: "w:1"\ntype: movie\nname: Broken\nreleased: someday\n', /m\.yaml:4:\d+: error\[invalid-value\]/],
      ] as const) {
        const from = out.stderr.length;
        await writeFile(path.join(dir, 'm.yaml'), text);
        await waitFor(() => out.stderr.includes('still serving the last good build', from), `the report of ${problem}`);
        expect(out.stderr.slice(from)).toMatch(problem);
        expect(out.stderr.slice(from)).toMatch(/The rebuild failed; still serving the last good build\.\n$/);
        expect(await name()).toBe('Before');
        expect((await get(base, '/manifest.json')).status).toBe(200);
      }
      await writeFile(path.join(dir, 'm.yaml'), 'id: "w:1"\ntype: movie\nname: Fixed\n');
      await waitFor(async () => (await name()) === 'Fixed', 'the fix');
      // The fixed meta is answered before the rebuild ends, which is then reported.
      await waitFor(() => out.stdout.includes('Rebuilt in'), 'the report of the rebuild');
      expect(out.stdout).toMatch(
        /\nServing the edit's 2 meta, stream and subtitles files now, before the rebuild ends\nServing the edit's 1 catalog page now, before the rebuild ends\nRebuilt in [\d.]+ s: \d+ files\n/,
      );
      // A film's file added, then deleted: its files, then the same answered as missing.
      const rebuilds = () => out.stdout.split('Rebuilt in').length - 1;
      for (const change of [() => writeFile(path.join(dir, 'n.yaml'), 'id: "w:2"\ntype: movie\nname: New\n'), () => rm(path.join(dir, 'n.yaml'))]) {
        const [from, count] = [out.stdout.length, rebuilds()];
        await change();
        await waitFor(() => rebuilds() > count, 'the rebuild');
        expect(out.stdout.slice(from).split('\n')[0]).toMatch(/^Serving the edit's 2 meta, stream and subtitles files( \(all removed\))? now/);
      }
      expect(out.stdout).toContain("Serving the edit's 2 meta, stream and subtitles files (all removed) now, before the rebuild ends\n");
      expect((await get(base, '/meta/movie/w%3A2.json')).status).toBe(404);
    } finally {
      controller.abort();
    }
    expect(await status).toBe(0);
  });

  it('with --watch, goes on watching a content folder deleted and made again, or moved away and back', async () => {
    const files = { 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'm.yaml': 'id: "w:1"\ntype: movie\nname: First\n' };
    const dir = await contentDir(files);
    const controller = new AbortController();
    const { out, status } = cli(['serve', dir, '--watch', '--port', '0'], controller.signal);
    try {
      const { name } = await watchStarted(out);
      const aside = `${dir}.aside`;
      for (const [away, back] of [
        [() => rm(dir, { recursive: true }), () => contentDir(files).then((made) => rename(made, dir))],
        [() => rename(dir, aside), () => rename(aside, dir)],
      ] as const) {
        const from = out.stderr.length;
        await away();
        await waitFor(() => out.stderr.includes('still serving the last good build', from), 'the report of the folder gone');
        expect(out.stderr.slice(from)).toMatch(/does not exist or is not a folder\nThe rebuild failed; still serving the last good build\.\n$/);
        expect(await name()).toBe('First');
        await back();
        // The folder back, then an edit in it: both are seen.
        await new Promise((resolve) => setTimeout(resolve, 600));
        await writeFile(path.join(dir, 'm.yaml'), 'id: "w:1"\ntype: movie\nname: Second\n');
        await waitFor(async () => (await name()) === 'Second', 'the edit in the folder made again');
        await writeFile(path.join(dir, 'm.yaml'), files['m.yaml']);
        await waitFor(async () => (await name()) === 'First', 'the edit back');
      }
    } finally {
      controller.abort();
    }
    expect(await status).toBe(0);
  });

  it('reports a port in use in one line, exit 2', async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as { port: number }).port;
      const { out, status } = cli(['serve', await contentDir(FILES), '--port', String(port)]);
      expect(await status).toBe(2);
      expect(out.stderr).toBe(`addon-gen: port ${port} on 127.0.0.1 is in use; stop the other server or choose another port with --port\n`);
      expect(out.stdout).toBe('');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('exits 1 with the problems when the content does not build, 2 for bad options', async () => {
    const bad = cli(['serve', await contentDir({ ...FILES, 'x.yaml': 'id: x\ntype: movie\nname: X\nrelased: 1\n' }), '--port', '0']);
    expect(await bad.status).toBe(1);
    expect(bad.out.stderr).toMatch(/error\[unknown-field\]: unknown field "relased"/);
    expect(bad.out.stderr).toMatch(/Nothing is served\.\n$/);

    for (const argv of [
      ['serve', 'content', '--dir', 'dist'],
      ['serve', '--dir', 'dist', '--watch'],
      ['serve', '--port', 'http'],
      ['serve', '/nonexistent/content', '--port', '0'],
      ['serve', '--dir', '/nonexistent/dist', '--port', '0'],
      ['serve', '--like', 'heroku', '--port', '0'],
    ]) {
      const { out, status } = cli(argv);
      expect(await status, argv.join(' ')).toBe(2);
      expect(out.stderr, argv.join(' ')).toMatch(/^addon-gen: [^\n]+\n$/);
    }
  });
});
