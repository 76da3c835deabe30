// Addon collections (`addonCatalogs`, the `addon_catalog` resource): test/fixtures/addon-collections
// lists two addons served by a server of this test on 127.0.0.1 (one behind a redirect) and one
// read from a file. Built and served by nginx set up like GitHub Pages under a sub-path and by the
// Cloudflare Pages runtime, the real client core installs it, loads the Addons screen's remote
// list (CatalogWithFilters of DescriptorPreview, the `remote_addons` model), and installs a listed
// addon from it as Stremio Web does. Then every misuse: its code at its line, nothing written.
// Nothing here talks to anything but 127.0.0.1.
import { cp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { readAddonManifests, redirectProblem } from '../src/load/addon-manifests.js';
import { startServer } from '../src/serve/index.js';
import type { AddonCatalog } from '../src/shared/content.js';
import { envelopeProblems } from './support/envelope.js';
import { EXAMPLE_DIR } from './support/example.js';
import { contentDir, readTree, tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { BROWSER_ORIGIN, startCore, type Core, type Json } from './support/stremio-core.js';
import { freePort, startPagesDev } from './support/wrangler.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/addon-collections', import.meta.url));
const LOCAL_URL = 'https://example.org/c/manifest.json';

/** What the listed addons' manifests say, as their server sends them. */
const MANIFEST_A = {
  id: 'org.example.a',
  version: '1.0.0',
  name: 'A Streams',
  description: 'Streams for films.',
  logo: 'https://example.org/a/logo.png',
  background: 'not a URL',
  contactEmail: 'a@example.org',
  types: ['movie'],
  resources: ['stream'],
  idPrefixes: ['tt'],
  catalogs: [],
  behaviorHints: { p2p: true, configurable: false, newHint: 'kept out' },
  config: [{ key: 'token', type: 'text' }],
};
const MANIFEST_B = { id: 'org.example.b', version: '0.3.0', name: 'B Metadata', types: ['series'], resources: ['meta'], catalogs: [] };

/**
 * The descriptors the collection files must hold, written by hand from the manifests above and
 * addons/c.json: the client's ManifestPreview and `resources`, nothing else of the manifest.
 */
const PREVIEW_A = {
  id: 'org.example.a',
  version: '1.0.0',
  name: 'A Streams',
  description: 'Streams for films.',
  logo: 'https://example.org/a/logo.png',
  types: ['movie'],
  resources: ['stream'],
  behaviorHints: { p2p: true, configurable: false },
};
const PREVIEW_B = { id: 'org.example.b', version: '0.3.0', name: 'B Metadata', types: ['series'], resources: ['meta'] };
const PREVIEW_C = {
  id: 'org.example.c',
  version: '2.1.0-beta.1',
  name: 'C Subtitles',
  description: 'Read from a file beside addon.yaml, never fetched.',
  logo: 'https://example.org/c/logo.png',
  types: ['movie', 'series'],
  resources: [{ name: 'subtitles', types: ['movie', 'series'], idPrefixes: ['tt'] }],
  behaviorHints: { configurable: true },
};

// ---------------------------------------------------------------------------------------------
// The listed addons' server

interface Route {
  status?: number;
  body?: string;
  location?: string;
  /** Never answer (a server that hangs). */
  hang?: boolean;
}

interface Listing {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  routes: Map<string, Route>;
  /** Each request's path and User-Agent, in order. */
  requests: { path: string; userAgent: string | undefined }[];
  close(): Promise<void>;
}

async function startListing(routes: Record<string, Route>): Promise<Listing> {
  const table = new Map(Object.entries(routes));
  const requests: Listing['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', userAgent: req.headers['user-agent'] });
    const route = table.get(req.url ?? '');
    if (route?.hang) return;
    const headers: Record<string, string> = { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' };
    if (route?.location) headers.Location = route.location;
    res.writeHead(route ? (route.status ?? 200) : 404, headers);
    res.end(route?.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    routes: table,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A: a manifest; B: a redirect to its manifest. */
const LISTED_ROUTES = (): Record<string, Route> => ({
  '/a/manifest.json': { body: JSON.stringify(MANIFEST_A) },
  '/b/manifest.json': { status: 302, location: '/b-moved/manifest.json' },
  '/b-moved/manifest.json': { body: JSON.stringify(MANIFEST_B) },
});

async function buildFixture(listing: Listing, baseUrl: string, host?: Host): Promise<string> {
  const out = path.join(await tempDir('addon-gen-collections-'), 'dist');
  const result = await build({ contentDir: FIXTURE, outDir: out, baseUrl, hosts: host && [host], env: { LISTED: listing.url } });
  expect(result.diagnostics).toEqual([]);
  expect(result.ok).toBe(true);
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the build writes

describe('the collection files', () => {
  it('hold the listed addons as the client reads them, and the manifest declares them', async () => {
    const listing = await startListing(LISTED_ROUTES());
    try {
      // Every host (the default).
      const out = await buildFixture(listing, 'https://user.github.io/repo/');
      const tree = await readTree(out);
      const json = (file: string) => JSON.parse(tree.get(file)!.toString('utf8')) as Json;
      const manifest = json('manifest.json');
      expect(manifest.addonCatalogs).toEqual([
        { type: 'all', id: 'picks', name: 'Our picks' },
        { type: 'other', id: 'subtitles', name: 'Subtitles' },
      ]);
      expect(manifest.resources).toEqual(['addon_catalog']);
      // An addon of collections alone has no types of its own; the client accepts an empty list.
      expect(manifest.types).toEqual([]);
      expect(json('addon_catalog/all/picks.json')).toEqual({
        addons: [
          { transportUrl: `${listing.url}a/manifest.json`, manifest: PREVIEW_A },
          // As listed, not where the redirect led: the client installs from the URL it is given.
          { transportUrl: `${listing.url}b/manifest.json`, manifest: PREVIEW_B },
          { transportUrl: LOCAL_URL, manifest: PREVIEW_C },
        ],
      });
      expect(json('addon_catalog/other/subtitles.json')).toEqual({ addons: [{ transportUrl: LOCAL_URL, manifest: PREVIEW_C }] });
      for (const file of ['manifest.json', 'addon_catalog/all/picks.json', 'addon_catalog/other/subtitles.json']) {
        expect(envelopeProblems(file, tree.get(file)!.toString('utf8')), file).toEqual([]);
      }
      // The install page lists the collections.
      expect(tree.get('index.html')!.toString('utf8')).toContain('<span class="catalog-name">Our picks</span> <span class="tag">addons</span>');
      // Cloudflare's JSON 404 in the folder, and the headers of the resource.
      expect(tree.get('addon_catalog/404.html')!.toString('utf8')).toBe('{"error":"not found"}\n');
      expect(tree.get('_headers')!.toString('utf8')).toContain('/addon_catalog/*\n  Content-Type: application/json; charset=utf-8\n');
      const vercel = json('vercel.json');
      expect(vercel.headers.map((h: Json) => h.source)).toContain('/addon_catalog/(.*)');
      // Each listed manifest was read once, by addon-gen, and the local one never over the network.
      expect(listing.requests.map((r) => r.path)).toEqual(['/a/manifest.json', '/b/manifest.json', '/b-moved/manifest.json']);
      expect(listing.requests[0]!.userAgent).toMatch(/^addon-gen\/\d+\.\d+\.\d+/);
    } finally {
      await listing.close();
    }
  });

  it('the S3 upload script gives them the JSON type', async () => {
    const listing = await startListing(LISTED_ROUTES());
    try {
      const out = await buildFixture(listing, 'https://cdn.example.org/', 's3');
      const upload = await readFile(`${out}-s3/upload.sh`, 'utf8');
      expect(upload).toContain(`--include 'addon_catalog/*' --exclude 'addon_catalog/404.html' --content-type 'application/json; charset=utf-8'`);
    } finally {
      await listing.close();
    }
  });

  it('follow the listed manifests from build to build, and a build of files alone is reused', async () => {
    const listing = await startListing(LISTED_ROUTES());
    const out = path.join(await tempDir('addon-gen-collections-'), 'dist');
    const run = () => build({ contentDir: FIXTURE, outDir: out, baseUrl: 'https://cdn.example.org/', env: { LISTED: listing.url } });
    const picks = async () => JSON.parse(await readFile(path.join(out, 'addon_catalog/all/picks.json'), 'utf8')) as Json;
    try {
      const first = await run();
      expect(first.ok).toBe(true);
      // The summary counts them: two collections, four entries (one addon is in both).
      expect(first.counts!.addonCollections).toEqual({ collections: 2, addons: 4 });
      expect((await picks()).addons[0].manifest.version).toBe('1.0.0');
      // A changed remote manifest: the next build reads it again (never reused) and rewrites the file.
      listing.routes.set('/a/manifest.json', { body: JSON.stringify({ ...MANIFEST_A, version: '1.1.0', name: 'A Streams 2' }) });
      const second = await run();
      expect(second.reused).toBeUndefined();
      expect(second.write!.byResource.addon_catalog).toMatchObject({ files: 2, written: 1 });
      expect((await picks()).addons[0].manifest).toMatchObject({ version: '1.1.0', name: 'A Streams 2' });
      expect(listing.requests.filter((r) => r.path === '/a/manifest.json')).toHaveLength(2);
    } finally {
      await listing.close();
    }

    // Local manifest files only: a rebuild with nothing changed ends early; a changed file does not.
    const local = path.join(await tempDir('addon-gen-collections-local-'), 'content');
    await cp(FIXTURE, local, { recursive: true });
    const yaml = await readFile(path.join(local, 'addon.yaml'), 'utf8');
    await writeFile(path.join(local, 'addon.yaml'), yaml.replace(/^ {6}- \$\{LISTED\}.*\n/gm, ''));
    const localOut = path.join(await tempDir('addon-gen-collections-'), 'dist');
    const localRun = () => build({ contentDir: local, outDir: localOut, baseUrl: 'https://cdn.example.org/' });
    expect((await localRun()).diagnostics).toEqual([]);
    expect((await localRun()).reused).toBe(true);
    const c = path.join(local, 'addons/c.json');
    await writeFile(c, (await readFile(c, 'utf8')).replace('"C Subtitles"', '"C Subtitles 2"'));
    const changed = await localRun();
    expect(changed.reused).toBeUndefined();
    const subtitles = JSON.parse(await readFile(path.join(localOut, 'addon_catalog/other/subtitles.json'), 'utf8')) as Json;
    expect(subtitles.addons[0].manifest.name).toBe('C Subtitles 2');
  });
});

// ---------------------------------------------------------------------------------------------
// The real client

/** Loads the Addons screen's remote list for one collection, as Stremio Web's Addons route does. */
async function remoteAddons(core: Core, base: string, type: string, id: string): Promise<Json> {
  core.dispatch({ action: 'Unload' }, 'remote_addons');
  core.dispatch(
    { action: 'Load', args: { model: 'CatalogWithFilters', args: { request: { base, path: { resource: 'addon_catalog', type, id, extra: [] } } } } },
    'remote_addons',
  );
  await core.settle();
  return core.state('remote_addons');
}

/** The addons a loaded remote list shows: transport URL and name of each. */
function listed(state: Json): [string, string][] {
  const content = state.catalog?.content;
  expect(content?.type, JSON.stringify(state.catalog)).toBe('Ready');
  return (content.content as Json[]).map((d) => [d.transportUrl, d.manifest.name]);
}

async function checkInClient(base: string, listing: Listing): Promise<void> {
  const manifestUrl = `${base}manifest.json`;
  const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
  try {
    await core.installAddon(manifestUrl);
    expect(core.installedAddons()).toEqual([manifestUrl]);

    const picks = await remoteAddons(core, manifestUrl, 'all', 'picks');
    expect(listed(picks)).toEqual([
      [`${listing.url}a/manifest.json`, 'A Streams'],
      [`${listing.url}b/manifest.json`, 'B Metadata'],
      [LOCAL_URL, 'C Subtitles'],
    ]);
    // The screen offers both collections of the addon, this one selected, and its type.
    expect(picks.selectable.catalogs.map((c: Json) => [c.name, c.id, c.selected])).toEqual([
      ['Our picks', 'picks', true],
      ['Subtitles', 'subtitles', false],
    ]);
    expect(picks.selectable.types.map((t: Json) => [t.type, t.selected])).toEqual([['all', true]]);
    const subtitles = await remoteAddons(core, manifestUrl, 'other', 'subtitles');
    expect(listed(subtitles)).toEqual([[LOCAL_URL, 'C Subtitles']]);

    // Install a listed addon as Stremio Web does: its details page, then InstallAddon.
    const entry = (picks.catalog.content.content as Json[])[0];
    const details = await core.addonDetails(entry.transportUrl);
    expect(details.type).toBe('Ready');
    const events = await core.installDescriptor(details.type === 'Ready' ? details.content : undefined);
    expect(events.map((e) => e.args.event)).toContain('AddonInstalled');
    expect(core.installedAddons()).toEqual([manifestUrl, `${listing.url}a/manifest.json`]);
    const installed = (core.state('ctx').profile.addons as Json[])[1];
    expect(installed.manifest).toMatchObject({ id: 'org.example.a', name: 'A Streams', resources: ['stream'] });

    // Every request to the host was answered 200.
    const host = new URL(base).origin;
    expect(core.fetches.filter((f) => f.url.startsWith(host)).map((f) => `${f.status} ${new URL(f.url).pathname}`)).toEqual([
      `200 ${new URL(manifestUrl).pathname}`,
      `200 ${new URL(`${base}addon_catalog/all/picks.json`).pathname}`,
      `200 ${new URL(`${base}addon_catalog/other/subtitles.json`).pathname}`,
    ]);
  } finally {
    await core.stop();
  }
}

describe('the Addons screen of the real client core', () => {
  it('on nginx set up like GitHub Pages, under a sub-path', async () => {
    const listing = await startListing(LISTED_ROUTES());
    const port = await freePort();
    const out = await buildFixture(listing, `http://127.0.0.1:${port}/repo/`, 'github-pages');
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      await checkInClient(nginx.url, listing);
    } finally {
      await nginx.close();
      await listing.close();
    }
  }, 120_000);

  it('on the Cloudflare Pages runtime (wrangler pages dev)', async () => {
    const listing = await startListing(LISTED_ROUTES());
    const port = await freePort();
    const out = await buildFixture(listing, `http://127.0.0.1:${port}/`, 'cloudflare');
    const pages = await startPagesDev(out, { port });
    try {
      await checkInClient(pages.url, listing);
      // A collection that is not there: the specification's JSON 404, as under every resource.
      const missing = await fetch(`${pages.url}addon_catalog/all/nothing.json`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await missing.text()).toMatch(/^\{"error":/);
    } finally {
      await pages.close();
      await listing.close();
    }
  }, 180_000);

  it("the bundled example's collection, built offline from its manifest files", async () => {
    const server = await startServer({ contentDir: EXAMPLE_DIR, port: 0 });
    const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
    try {
      await core.installAddon(server.manifestUrl);
      const companions = await remoteAddons(core, server.manifestUrl, 'all', 'companions');
      expect(listed(companions)).toEqual([
        ['https://v3-cinemeta.strem.io/manifest.json', 'Cinemeta'],
        ['https://opensubtitles-v3.strem.io/manifest.json', 'OpenSubtitles v3'],
      ]);
    } finally {
      await core.stop();
      await server.close();
    }
  }, 60_000);

  it('served by addon-gen serve, with the JSON type and the cache headers', async () => {
    const listing = await startListing(LISTED_ROUTES());
    const content = path.join(await tempDir('addon-gen-collections-serve-'), 'content');
    await cp(FIXTURE, content, { recursive: true });
    const yaml = await readFile(path.join(content, 'addon.yaml'), 'utf8');
    await writeFile(path.join(content, 'addon.yaml'), `${yaml.replaceAll('${LISTED}', listing.url)}cache: { addon_catalog: { maxAge: 60 } }\n`);
    const server = await startServer({ contentDir: content, port: 0 });
    try {
      const response = await fetch(`${server.url}addon_catalog/all/picks.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('max-age=60, public');
      const body = (await response.json()) as Json;
      expect(body.cacheMaxAge).toBe(60);
      expect(body.addons.map((a: Json) => a.manifest.id)).toEqual(['org.example.a', 'org.example.b', 'org.example.c']);
    } finally {
      await server.close();
      await listing.close();
    }
  }, 60_000);
});

describe('serve --watch', () => {
  it('rebuilds when a manifest file changes, and keeps the last good tree when one breaks', async () => {
    const listing = await startListing(LISTED_ROUTES());
    const content = path.join(await tempDir('addon-gen-collections-watch-'), 'content');
    await cp(FIXTURE, content, { recursive: true });
    const yaml = await readFile(path.join(content, 'addon.yaml'), 'utf8');
    await writeFile(path.join(content, 'addon.yaml'), yaml.replaceAll('${LISTED}', listing.url));
    const builds: BuildResult[] = [];
    const server = await startServer({ contentDir: content, port: 0, watch: true, debounceMs: 30, onBuild: (b) => builds.push(b) });
    const names = async () => {
      const body = (await (await fetch(`${server.url}addon_catalog/other/subtitles.json`)).json()) as Json;
      return body.addons.map((a: Json) => a.manifest.name) as string[];
    };
    const waitFor = async (done: () => boolean | Promise<boolean>, what: string) => {
      for (const started = Date.now(); !(await done());) {
        if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const c = path.join(content, 'addons/c.json');
    const original = await readFile(c, 'utf8');
    try {
      expect(await names()).toEqual(['C Subtitles']);
      await writeFile(c, original.replace('"C Subtitles"', '"C Subtitles, edited"'));
      await waitFor(async () => (await names())[0] === 'C Subtitles, edited', 'the edit');
      const failed = builds.filter((b) => !b.ok).length;
      await writeFile(c, '{ "id": ');
      await waitFor(() => builds.filter((b) => !b.ok).length > failed, 'the failed build');
      // Reported where each collection lists it.
      expect(builds.at(-1)!.diagnostics.map((d) => [d.code, d.line])).toEqual([
        ['addon-unreadable', 14],
        ['addon-unreadable', 20],
      ]);
      expect(await names()).toEqual(['C Subtitles, edited']);
    } finally {
      await server.close();
      await listing.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// Misuses: each reports its code at its line and column, and the output folder stays as it was.

/** An addon.yaml listing `entries` (YAML lines under `addons:`, indented 6), and a local manifest file. */
function addonYaml(entries: string[]): string {
  return [
    'id: org.example.broken',
    'version: 1.0.0',
    'name: Broken collections',
    'addonCatalogs:',
    '  - id: picks',
    '    name: Picks',
    '    addons:',
    ...entries.map((entry) => `      ${entry}`),
    '',
  ].join('\n');
}

const GOOD_ENTRY = '- { url: https://example.org/c/manifest.json, manifest: c.json }';

/** Builds `entries` into a folder holding a good build, and returns the result; the folder must be unchanged. */
async function buildBroken(entries: string[], files: Record<string, string> = {}): Promise<BuildResult> {
  const c = await readFile(path.join(FIXTURE, 'addons/c.json'), 'utf8');
  const good = await contentDir({ 'addon.yaml': addonYaml([GOOD_ENTRY]), 'c.json': c });
  const out = path.join(await tempDir('addon-gen-collections-out-'), 'dist');
  expect((await build({ contentDir: good, outDir: out })).diagnostics).toEqual([]);
  const before = await readTree(out);
  const dir = await contentDir({ 'addon.yaml': addonYaml([GOOD_ENTRY, ...entries]), 'c.json': c, ...files });
  const result = await build({ contentDir: dir, outDir: out });
  expect(result.ok).toBe(false);
  expect(await readTree(out)).toEqual(before);
  return result;
}

/** Code, line, column and path of each diagnostic; the message and hint checked apart. */
const located = (result: BuildResult) => result.diagnostics.map((d) => [d.code, d.line, d.column, d.path]);

describe('misuses', () => {
  it('a URL that answers 500, and a port nothing listens on: addon-unreadable, naming the URL', async () => {
    const listing = await startListing({ '/broken/manifest.json': { status: 500, body: 'oops' } });
    const closedPort = await freePort();
    try {
      const broken = `${listing.url}broken/manifest.json`;
      const closed = `http://127.0.0.1:${closedPort}/manifest.json`;
      const result = await buildBroken([`- ${broken}`, `- ${closed}`]);
      expect(located(result)).toEqual([
        ['addon-unreadable', 9, 9, 'addonCatalogs[0].addons[1]'],
        ['addon-unreadable', 10, 9, 'addonCatalogs[0].addons[2]'],
      ]);
      expect(result.diagnostics[0]!.message).toBe(`the manifest of ${broken} cannot be read: the server answered HTTP 500`);
      expect(result.diagnostics[1]!.message).toBe(`the manifest of ${closed} cannot be read: the connection was refused (nothing listens there)`);
      expect(result.diagnostics[0]!.hint).toContain('check the URL');
    } finally {
      await listing.close();
    }
  });

  it('JSON that is not a manifest, and text that is not JSON', async () => {
    const listing = await startListing({
      '/hello/manifest.json': { body: '{"hello":"world"}' },
      '/page/manifest.json': { body: '<!doctype html><title>An addon</title>' },
    });
    try {
      const hello = `${listing.url}hello/manifest.json`;
      const page = `${listing.url}page/manifest.json`;
      const noTypes = JSON.stringify({ id: 'x.y', version: '1.0.0', name: 'X', resources: [] });
      const result = await buildBroken([`- ${hello}`, `- ${page}`, '- url: https://example.org/x/manifest.json', '  manifest: x.json'], {
        'x.json': noTypes,
      });
      expect(located(result)).toEqual([
        ['invalid-addon-manifest', 9, 9, 'addonCatalogs[0].addons[1]'],
        ['addon-unreadable', 10, 9, 'addonCatalogs[0].addons[2]'],
        ['invalid-addon-manifest', 12, 19, 'addonCatalogs[0].addons[3].manifest'],
      ]);
      expect(result.diagnostics[0]!.message).toBe(`${hello} is not a manifest Stremio accepts: id is missing`);
      expect(result.diagnostics[1]!.message).toMatch(new RegExp(`^the manifest of ${page.replaceAll('.', '\\.')} is not JSON: `));
      expect(result.diagnostics[2]!.message).toBe(
        'https://example.org/x/manifest.json (read from x.json) is not a manifest Stremio accepts: types is missing',
      );
    } finally {
      await listing.close();
    }
  });

  it('a redirect to plain http on another machine is not followed (nothing is asked of it)', async () => {
    const listing = await startListing({ '/moved/manifest.json': { status: 301, location: 'http://example.org/manifest.json' } });
    try {
      const moved = `${listing.url}moved/manifest.json`;
      const result = await buildBroken([`- ${moved}`]);
      expect(located(result)).toEqual([['addon-unreadable', 9, 9, 'addonCatalogs[0].addons[1]']]);
      expect(result.diagnostics[0]!.message).toBe(
        `the manifest of ${moved} cannot be read: it redirects to plain http (http://example.org/manifest.json), which is not followed`,
      );
    } finally {
      await listing.close();
    }
  });

  it('a URL that is not a manifest URL, or plain http to another machine: invalid-addon-manifest, before any request', async () => {
    const result = await buildBroken([
      '- https://example.org/addon/',
      '- { url: "stremio://example.org/manifest.json", manifest: c.json }',
      '- http://example.org/manifest.json',
      '- https://user:secret@example.org/manifest.json',
      '- http://localhost:7000/manifest.json',
    ]);
    expect(located(result)).toEqual([
      ['invalid-addon-manifest', 9, 9, 'addonCatalogs[0].addons[1]'],
      ['invalid-addon-manifest', 10, 16, 'addonCatalogs[0].addons[2].url'],
      ['invalid-addon-manifest', 11, 9, 'addonCatalogs[0].addons[3]'],
      ['invalid-addon-manifest', 12, 9, 'addonCatalogs[0].addons[4]'],
      ['invalid-addon-manifest', 13, 9, 'addonCatalogs[0].addons[5]'],
    ]);
    expect(result.diagnostics[2]!.message).toContain('is plain http:// and not on 127.0.0.1');
    expect(result.diagnostics[3]!.message).toBe('the URL holds a user name or password, which the collection would publish to everyone');
    // The apps take plain http from 127.0.0.1 only, not from this machine by another name.
    expect(result.diagnostics[4]!.hint).toBe('use the https:// URL of the addon (plain http:// works only from 127.0.0.1, not localhost)');
  });

  it('a redirect from another machine to this one or its network is not followed', () => {
    const from = 'https://addons.example.org/a/manifest.json';
    for (const to of [
      'https://127.0.0.1/manifest.json',
      'https://localhost:8443/x',
      'https://10.1.2.3/m',
      'https://172.20.0.1/m',
      'https://192.168.1.1/m',
      'https://169.254.169.254/latest',
      'https://[::1]/m',
      'https://[fd00::1]/m',
      'https://[fe80::1]/m',
    ]) {
      expect(redirectProblem(from, new URL(to)), to).toMatch(/an address of this machine or its network/);
    }
    for (const to of ['https://cdn.example.org/manifest.json', 'https://172.32.0.1/m', 'https://8.8.8.8/m'])
      expect(redirectProblem(from, new URL(to)), to).toBeUndefined();
    // From this machine, to this machine: a local test server, as the tests use.
    expect(redirectProblem('http://127.0.0.1:8080/a/manifest.json', new URL('http://127.0.0.1:8080/b/manifest.json'))).toBeUndefined();
  });

  it('the same addon twice in a collection, and two collections of one type and id: duplicate-addon', async () => {
    const result = await buildBroken(['- { url: "HTTPS://EXAMPLE.ORG/c/manifest.json", manifest: c.json }']);
    expect(located(result)).toEqual([['duplicate-addon', 9, 16, 'addonCatalogs[0].addons[1].url']]);
    expect(result.diagnostics[0]!.related).toEqual([{ file: expect.any(String), line: 8, column: 16, message: 'listed first here' }]);

    const c = await readFile(path.join(FIXTURE, 'addons/c.json'), 'utf8');
    const twice = `${addonYaml([GOOD_ENTRY])}  - { id: picks, type: all, name: Again, addons: [https://example.org/d/manifest.json] }\n`;
    const dir = await contentDir({ 'addon.yaml': twice, 'c.json': c });
    const again = await build({ contentDir: dir });
    expect(located(again)).toEqual([['duplicate-addon', 9, 11, 'addonCatalogs[1].id']]);
    expect(again.diagnostics[0]!.message).toBe('an addon collection of type "all" with id "picks" is already declared');
    expect(again.diagnostics[0]!.related?.[0]).toMatchObject({ line: 5, column: 9, message: 'declared first here' });
  });

  it('a manifest file that is missing or outside the content folder: addon-unreadable at the file', async () => {
    const result = await buildBroken([
      '- { url: "https://example.org/m/manifest.json", manifest: missing.json }',
      '- { url: "https://example.org/o/manifest.json", manifest: ../c.json }',
    ]);
    expect(located(result)).toEqual([
      ['addon-unreadable', 9, 65, 'addonCatalogs[0].addons[1].manifest'],
      ['addon-unreadable', 10, 65, 'addonCatalogs[0].addons[2].manifest'],
    ]);
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'the manifest file missing.json cannot be read: there is no such file',
      'the manifest file ../c.json cannot be read: it is outside the content folder',
    ]);
  });

  it('a manifest whose published part is over 8 KiB: invalid-addon-manifest, so that a line of YAML cannot publish much more', async () => {
    const long = JSON.stringify({ id: 'x.y', version: '1.0.0', name: 'X', description: 'x'.repeat(9000), types: ['movie'], resources: ['stream'] });
    const result = await buildBroken(['- { url: "https://example.org/long/manifest.json", manifest: long.json }'], { 'long.json': long });
    expect(located(result)).toEqual([['invalid-addon-manifest', 9, 68, 'addonCatalogs[0].addons[1].manifest']]);
    expect(result.diagnostics[0]!.message).toMatch(
      /^what a collection publishes of https:\/\/example\.org\/long\/manifest\.json .* is 9\d{3} bytes, over the 8192/,
    );
  });

  it("a listed manifest that holds a guarded variable's value: secret-in-output, as any published value", async () => {
    const secret = 'tok-0123456789abcdef';
    const leaky = JSON.stringify({ id: 'x.y', version: '1.0.0', name: 'X', description: `key ${secret}`, types: ['movie'], resources: ['stream'] });
    const dir = await contentDir({
      'addon.yaml': addonYaml(['- { url: "https://example.org/x/manifest.json", manifest: x.json }']),
      'x.json': leaky,
    });
    const result = await build({ contentDir: dir, env: { API_TOKEN: secret } });
    expect(located(result)).toEqual([['secret-in-output', 8, 65, 'addonCatalogs[0].addons[0].manifest']]);
    expect(result.diagnostics[0]!.message).toContain('API_TOKEN');
    expect(result.diagnostics[0]!.message).not.toContain(secret);
  });

  it('`resources` in addon.yaml: addon_catalog is checked against the collections like any resource', async () => {
    const c = await readFile(path.join(FIXTURE, 'addons/c.json'), 'utf8');
    const check = async (resources: string) => {
      const dir = await contentDir({ 'addon.yaml': `resources: ${resources}\n${addonYaml([GOOD_ENTRY])}`, 'c.json': c });
      const result = await build({ contentDir: dir });
      return result.diagnostics.map((d) => [d.code, d.line, d.column, d.message]);
    };
    expect(await check('[addon_catalog]')).toEqual([]);
    expect(await check('[meta]')).toEqual([
      [
        'invalid-value',
        1,
        13,
        'the content offers nothing for meta: no item has a name (an item without one adds streams or subtitles to a title another addon describes)',
      ],
      ['invalid-value', 1, 12, 'resources leaves out addon_catalog, which the content offers (for "picks", for one)'],
    ]);
    expect(await check('[{ name: addon_catalog, types: [all] }]')).toEqual([
      ['invalid-value', 1, 13, 'addon_catalog takes no types or idPrefixes: the client asks for the addon collections the manifest lists'],
    ]);
  });

  it('a server that does not answer in time (the timeout made short here)', async () => {
    const listing = await startListing({ '/slow/manifest.json': { hang: true } });
    try {
      const url = `${listing.url}slow/manifest.json`;
      const at = { file: 'addon.yaml', line: 3, column: 9, path: 'addonCatalogs[0].addons[0]' };
      const collections: AddonCatalog[] = [{ id: 'picks', type: 'all', name: 'Picks', addons: [{ transportUrl: url, at }] }];
      const started = Date.now();
      const read = await readAddonManifests(collections, { contentDir: FIXTURE, timeoutMs: 300 });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(read.diagnostics).toEqual([
        expect.objectContaining({ code: 'addon-unreadable', ...at, message: `the manifest of ${url} cannot be read: no answer within 0.3 s` }),
      ]);
    } finally {
      await listing.close();
    }
  });
});
