// Configurable addons (issue 29) in the real client: test/fixtures/configurable (a quality select,
// sd or hd, default hd; a silent checkbox, default true; a catalog, a film, streams and a subtitle
// kept only in some configurations) built and served by nginx set up like GitHub Pages under a
// sub-path and by the Cloudflare Pages runtime (`wrangler pages dev`). For the root and each of
// the four configurations' manifests, a fresh client core walks the whole addon, and what it shows
// (board rows, their items, each film's streams and subtitles) is compared with expectations
// written here by hand from the fixture. Then configurationRequired as the core itself handles
// it (AddonDetails, InstallAddon, the configure URL Stremio Web opens, two configurations
// installed side by side), and `addon-gen serve` answering the configurations' folders.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { startServer } from '../src/serve/index.js';
import { SYNTHETIC_STREAM, walkAddon } from './support/client-walk.js';
import { readTree, tempDir } from './support/content.js';
import { startNginx } from './support/nginx.js';
import { BROWSER_ORIGIN, startCore, type Core, type Json } from './support/stremio-core.js';
import { freePort, startPagesDev } from './support/wrangler.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/configurable', import.meta.url));

/** The configurations' folders, as the issue names them. */
const SEGMENTS = ['quality=sd,silent=true', 'quality=sd,silent=false', 'quality=hd,silent=true', 'quality=hd,silent=false'];

const FILM_1 = 'cfg:film-1';
const FILM_2 = 'cfg:film-2';
const EN = 'https://example.com/film-2/en.vtt';
const HD_ONLY = 'https://example.com/film-2/hd.vtt';

/** What the client shows in one configuration, written by hand from the fixture. */
interface Expected {
  /** '' for the root (the defaults), else the configuration's folder. */
  segment: string;
  /** The board: each row's name and the ids of its items, in order. */
  rows: [string, string[]][];
  /** Per film the configuration has: its streams' names, each with the subtitle URLs it carries. */
  streams: Record<string, [string, string[]][]>;
  /** Per film: the subtitle URLs the player gets from the addon's subtitles resource. */
  subtitles: Record<string, string[]>;
  /** Films the configuration leaves out: the client finds no meta for them. */
  absent: string[];
}

// quality sd or hd; silent true: Films and Silent films (no `items:`, so both list every movie),
// film-1 in them; silent false: Films alone, film-2 alone.
const WITH_SILENTS: [string, string[]][] = [
  ['Films', [FILM_1, FILM_2]],
  ['Silent films', [FILM_1, FILM_2]],
];
const WITHOUT_SILENTS: [string, string[]][] = [['Films', [FILM_2]]];

const SD_TRUE: Expected = {
  segment: 'quality=sd,silent=true',
  rows: WITH_SILENTS,
  streams: {
    [FILM_1]: [['SD', []]],
    [FILM_2]: [
      ['SD', [EN]],
      ['Any', [EN]],
    ],
  },
  subtitles: { [FILM_1]: [], [FILM_2]: [EN] },
  absent: [],
};
const SD_FALSE: Expected = {
  segment: 'quality=sd,silent=false',
  rows: WITHOUT_SILENTS,
  streams: {
    [FILM_2]: [
      ['SD', [EN]],
      ['Any', [EN]],
    ],
  },
  subtitles: { [FILM_2]: [EN] },
  absent: [FILM_1],
};
const HD_TRUE: Expected = {
  segment: 'quality=hd,silent=true',
  rows: WITH_SILENTS,
  streams: {
    [FILM_1]: [['HD', []]],
    [FILM_2]: [
      ['HD', [EN, HD_ONLY]],
      ['Any', [EN, HD_ONLY]],
    ],
  },
  subtitles: { [FILM_1]: [], [FILM_2]: [EN, HD_ONLY] },
  absent: [],
};
const HD_FALSE: Expected = {
  segment: 'quality=hd,silent=false',
  rows: WITHOUT_SILENTS,
  streams: {
    [FILM_2]: [
      ['HD', [EN, HD_ONLY]],
      ['Any', [EN, HD_ONLY]],
    ],
  },
  subtitles: { [FILM_2]: [EN, HD_ONLY] },
  absent: [FILM_1],
};
/** The root serves the defaults: quality hd, silent true. */
const ROOT: Expected = { ...HD_TRUE, segment: '' };

const EVERY: Expected[] = [ROOT, SD_TRUE, SD_FALSE, HD_TRUE, HD_FALSE];

/** The `config` of the root manifest, in the SDK's form (a checkbox's default is `checked`). */
const SDK_CONFIG = [
  { key: 'quality', type: 'select', title: 'Stream quality', options: ['sd', 'hd'], default: 'hd' },
  { key: 'silent', type: 'checkbox', title: 'Include silent films', default: 'checked' },
];

/** A copy of the fixture with `configurationRequired` as given. */
async function fixtureWith(configurationRequired: boolean): Promise<string> {
  const dir = path.join(await tempDir('addon-gen-configurable-content-'), 'content');
  await cp(FIXTURE, dir, { recursive: true });
  const file = path.join(dir, 'addon.yaml');
  const yaml = await readFile(file, 'utf8');
  expect(yaml).toContain('configurationRequired: false');
  await writeFile(file, yaml.replace('configurationRequired: false', `configurationRequired: ${configurationRequired}`));
  return dir;
}

async function buildFor(contentDir: string, baseUrl: string, host: Host): Promise<string> {
  const out = path.join(await tempDir('addon-gen-configurable-'), 'dist');
  const result = await build({ contentDir, outDir: out, baseUrl, hosts: [host] });
  expect(result.diagnostics).toEqual([]);
  expect(result.ok).toBe(true);
  return out;
}

async function manifestOf(url: string): Promise<Json> {
  const response = await fetch(url, { headers: { Origin: BROWSER_ORIGIN } });
  expect(response.status, url).toBe(200);
  expect(response.headers.get('content-type'), url).toBe('application/json; charset=utf-8');
  return response.json();
}

/** The requests the core made to the host serving `base`. */
const toHost = (core: Core, base: string) => core.fetches.filter((f) => f.url.startsWith(`${new URL(base).origin}/`));

/** The player's subtitles that came from this addon's subtitles resource (the core names them `{transportUrl}_{n}`). */
const fromAddon = (subtitles: Json[], transportUrl: string): string[] =>
  subtitles.filter((s) => typeof s.id === 'string' && s.id.startsWith(`${transportUrl}_`)).map((s) => s.url as string);

/**
 * One configuration in a fresh client: the whole walk passes, every request stays in the
 * configuration's folder, and the board, streams and subtitles are the expected ones.
 */
async function checkConfiguration(base: string, expected: Expected, host: Host): Promise<void> {
  const folder = expected.segment === '' ? base : `${base}${expected.segment}/`;
  const manifestUrl = `${folder}manifest.json`;
  const label = expected.segment || 'root';

  // The manifest as the host serves it: configurable, not required; `config` at the root only.
  const manifest = await manifestOf(manifestUrl);
  expect(manifest.behaviorHints, label).toEqual({ configurable: true, configurationRequired: false });
  expect(
    manifest.catalogs.map((c: Json) => c.name),
    label,
  ).toEqual(expected.rows.map(([name]) => name));
  if (expected.segment === '') expect(manifest.config, label).toEqual(SDK_CONFIG);
  else expect(manifest.config, label).toBeUndefined();

  const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
  try {
    const walk = await walkAddon(core, manifestUrl);
    expect(walk.failures, label).toEqual([]);
    expect(walk.counts.metas, label).toBe(Object.keys(expected.streams).length);
    expect(core.installedAddons(), label).toEqual([manifestUrl]);
    const installed = core.state('ctx').profile.addons[0];
    expect(installed.manifest.behaviorHints, label).toMatchObject({ configurable: true, configurationRequired: false });

    // What the user sees.
    const board = await core.board();
    expect(
      board.map((row) => [row.name, row.ids]),
      label,
    ).toEqual(expected.rows);
    for (const [id, streams] of Object.entries(expected.streams)) {
      const details = await core.metaDetails('movie', id, id);
      expect(details.meta?.content.type, `${label} ${id}`).toBe('Ready');
      const ours = details.streams.find((s) => s.transportUrl === manifestUrl)?.content;
      expect(ours?.type, `${label} ${id}`).toBe('Ready');
      const got = ours?.type === 'Ready' ? ours.content : [];
      expect(
        got.map((s: Json) => [s.name, (s.subtitles ?? []).map((t: Json) => t.url)]),
        `${label} ${id}`,
      ).toEqual(streams);
      const player = await core.player(
        SYNTHETIC_STREAM,
        { transportUrl: manifestUrl, type: 'movie', id, videoId: id },
        { hash: null, size: null, filename: null },
      );
      expect(fromAddon(player.subtitles, manifestUrl).sort(), `${label} ${id}`).toEqual([...expected.subtitles[id]!].sort());
    }

    // Every request to the host so far answered 200, and all in this configuration's folder (the
    // root's in none of the configurations' folders). Not counted: the core's own calls to the
    // streaming server (127.0.0.1:11470), which the harness refuses.
    const requests = toHost(core, base).map((f) => `${f.status ?? f.error} ${f.url}`);
    expect(
      requests.filter((r) => !r.startsWith(`200 ${folder}`)),
      label,
    ).toEqual([]);
    expect(
      requests.filter((r) => SEGMENTS.some((segment) => segment !== expected.segment && r.includes(`/${segment}/`))),
      label,
    ).toEqual([]);

    // A player that knows the video (the desktop apps, with the streaming server) asks with
    // extras: a host with the rewrite answers from this configuration's own file.
    if (host === 'cloudflare') {
      for (const id of Object.keys(expected.subtitles)) {
        const player = await core.player(
          SYNTHETIC_STREAM,
          { transportUrl: manifestUrl, type: 'movie', id, videoId: id },
          { hash: '0123456789abcdef', size: 1234, filename: 'film.mp4' },
        );
        const withExtras = player.subtitlesFetches.filter((f) => f.url.startsWith(`${folder}subtitles/movie/${encodeURIComponent(id)}/`));
        expect(
          withExtras.map((f) => f.status),
          `${label} ${id}`,
        ).toEqual([200]);
        expect(fromAddon(player.subtitles, manifestUrl).sort(), `${label} ${id} with extras`).toEqual([...expected.subtitles[id]!].sort());
      }
    }

    // A film the configuration leaves out is not there (its meta is a 404 from the host).
    for (const id of expected.absent) {
      const details = await core.metaDetails('movie', id, id);
      expect(details.meta?.content.type, `${label} ${id}`).toBe('Err');
      expect(
        core.fetches.filter((f) => f.url === `${folder}meta/movie/${encodeURIComponent(id)}.json`).map((f) => f.status),
        `${label} ${id}`,
      ).toEqual([404]);
    }
  } finally {
    await core.stop();
  }
}

describe('every configuration in the real client core', () => {
  it('on nginx set up like GitHub Pages, under a sub-path', async () => {
    const port = await freePort();
    const out = await buildFor(FIXTURE, `http://127.0.0.1:${port}/repo/`, 'github-pages');
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      for (const expected of EVERY) await checkConfiguration(nginx.url, expected, 'github-pages');
    } finally {
      await nginx.close();
    }
  }, 120_000);

  it('on the Cloudflare Pages runtime (wrangler pages dev)', async () => {
    const port = await freePort();
    const out = await buildFor(FIXTURE, `http://127.0.0.1:${port}/`, 'cloudflare');
    const pages = await startPagesDev(out, { port });
    try {
      for (const expected of EVERY) await checkConfiguration(pages.url, expected, 'cloudflare');
    } finally {
      await pages.close();
    }
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------
// configurationRequired, as the client core handles it.

/** The URL Stremio Web opens for Configure (Addons.js, AddonDetailsModal.js): the core has no action for it. */
const configureUrl = (transportUrl: string) => transportUrl.replace('manifest.json', 'configure');

/** What a browser gets at a configure URL: the redirect it follows, then the page. */
async function openConfigure(url: string): Promise<{ redirect: [number, string | null]; finalUrl: string }> {
  const first = await fetch(url, { redirect: 'manual', headers: { Origin: BROWSER_ORIGIN } });
  await first.arrayBuffer();
  const followed = await fetch(url);
  expect(followed.status, url).toBe(200);
  expect(followed.headers.get('content-type'), url).toBe('text/html; charset=utf-8');
  const html = await followed.text();
  expect(html, url).toMatch(/^<!doctype html>/i);
  // The configure page: a form of the fixture's options.
  expect(html, url).toContain('Stream quality');
  expect(html, url).toContain('Include silent films');
  return { redirect: [first.status, first.headers.get('location')], finalUrl: followed.url };
}

/** The error event the core emits for an install of an addon that requires configuration. */
const configurationRequiredEvent = (transportUrl: string) => ({
  name: 'CoreEvent',
  args: {
    event: 'Error',
    args: {
      // stremio-core's OtherError::AddonConfigurationRequired, serialized.
      error: { type: 'Other', code: 6, message: 'Addon requires configuration' },
      source: { event: 'AddonInstalled', args: { transport_url: transportUrl, id: 'org.addongen.configurable' } },
    },
  },
});

/**
 * The whole configurationRequired story on one host; `redirects` is what that host answers a
 * configure URL without its slash with (status, Location), given the folder's URL.
 */
async function checkRequired(base: string, redirect: (folderUrl: string) => [number, string]): Promise<void> {
  const rootUrl = `${base}manifest.json`;
  const sdSilentFalse = `${base}quality=sd,silent=false/manifest.json`;
  const hdSilentTrue = `${base}quality=hd,silent=true/manifest.json`;

  // The root serves only its manifest (and pages): no catalog to answer.
  expect((await manifestOf(rootUrl)).behaviorHints).toEqual({ configurable: true, configurationRequired: true });
  expect((await fetch(`${base}catalog/movie/films.json`)).status).toBe(404);

  const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
  try {
    // The details page reads it: configurable, configuration required.
    const details = await core.addonDetails(rootUrl);
    expect(details.type).toBe('Ready');
    const descriptor = details.type === 'Ready' ? details.content : undefined;
    expect(descriptor.transportUrl).toBe(rootUrl);
    expect(descriptor.manifest.behaviorHints).toEqual({ adult: false, p2p: false, configurable: true, configurationRequired: true });

    // Install refused: nothing installed, one error event.
    const refused = await core.installDescriptor(descriptor);
    expect(refused).toEqual([configurationRequiredEvent(rootUrl)]);
    expect(core.installedAddons()).toEqual([]);

    // Configure, as Stremio Web opens it from the details page: the page, after the host's redirect to the folder.
    expect(configureUrl(rootUrl)).toBe(`${base}configure`);
    const rootPage = await openConfigure(configureUrl(rootUrl));
    expect(rootPage.redirect).toEqual(redirect(base));
    expect(rootPage.finalUrl).toBe(`${base}configure/`);

    // A configured URL installs.
    const installed = await core.installAddon(sdSilentFalse);
    expect(installed.transportUrl).toBe(sdSilentFalse);
    expect(installed.manifest.behaviorHints).toMatchObject({ configurable: true, configurationRequired: false });
    expect(core.installedAddons()).toEqual([sdSilentFalse]);
    expect(
      (await core.board()).map((row) => [row.name, row.ids]),
      'quality=sd,silent=false',
    ).toEqual(WITHOUT_SILENTS);

    // Re-configure from the installed addon: its own configure page.
    expect(configureUrl(installed.transportUrl)).toBe(`${base}quality=sd,silent=false/configure`);
    const again = await openConfigure(configureUrl(installed.transportUrl));
    expect(again.redirect).toEqual(redirect(`${base}quality=sd,silent=false/`));
    expect(again.finalUrl).toBe(`${base}quality=sd,silent=false/configure/`);

    // A second configuration of the same addon: the core keys addons by transport URL, so both
    // stay installed (same id), without an error, and the board has the rows of both.
    const detailsHd = await core.addonDetails(hdSilentTrue);
    expect(detailsHd.type).toBe('Ready');
    const second = await core.installDescriptor(detailsHd.type === 'Ready' ? detailsHd.content : undefined);
    expect(second.map((e) => e.args.event)).toEqual(['AddonInstalled', 'ProfilePushedToStorage']);
    expect(second[0].args.args).toEqual({ transport_url: hdSilentTrue, id: 'org.addongen.configurable' });
    expect(core.installedAddons()).toEqual([sdSilentFalse, hdSilentTrue]);
    expect(core.state('ctx').profile.addons.map((a: Json) => a.manifest.id)).toEqual(['org.addongen.configurable', 'org.addongen.configurable']);
    expect((await core.board()).map((row) => [row.name, row.ids])).toEqual([...WITHOUT_SILENTS, ...WITH_SILENTS]);

    // Every request of the core to the host answered 200.
    expect(
      toHost(core, base)
        .filter((f) => f.status !== 200)
        .map((f) => `${f.status ?? f.error} ${f.url}`),
    ).toEqual([]);
  } finally {
    await core.stop();
  }
}

/** The files of the root tree that are not pages or host files: only the manifest. */
function rootAddonFiles(tree: Map<string, Buffer>): string[] {
  return [...tree.keys()].filter(
    (file) => !SEGMENTS.some((segment) => file.startsWith(`${segment}/`)) && /^(manifest\.json|(catalog|meta|stream|subtitles)\/)/.test(file),
  );
}

describe('configurationRequired in the real client core', () => {
  it('on nginx set up like GitHub Pages: the root refuses to install, the configured URLs install, each has its configure page', async () => {
    const content = await fixtureWith(true);
    const port = await freePort();
    const out = await buildFor(content, `http://127.0.0.1:${port}/repo/`, 'github-pages');
    const tree = await readTree(out);
    expect(rootAddonFiles(tree)).toEqual(['manifest.json']);
    for (const segment of SEGMENTS) expect(tree.has(`${segment}/manifest.json`), segment).toBe(true);
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      // nginx (like GitHub Pages) sends a folder without its slash to the folder, by a 301 to the full URL.
      await checkRequired(nginx.url, (folderUrl) => [301, `${folderUrl}configure/`]);
    } finally {
      await nginx.close();
    }
  }, 120_000);

  it('on the Cloudflare Pages runtime (wrangler pages dev)', async () => {
    const content = await fixtureWith(true);
    const port = await freePort();
    const out = await buildFor(content, `http://127.0.0.1:${port}/`, 'cloudflare');
    // Only the manifest, and Cloudflare's JSON 404 page in each folder of a resource it declares.
    expect(rootAddonFiles(await readTree(out)).sort()).toEqual([
      'catalog/404.html',
      'manifest.json',
      'meta/404.html',
      'stream/404.html',
      'subtitles/404.html',
    ]);
    const pages = await startPagesDev(out, { port });
    try {
      // Cloudflare Pages sends `/configure` to `/configure/` by a 308 with a Location of the path alone.
      await checkRequired(pages.url, (folderUrl) => [308, `${new URL(folderUrl).pathname}configure/`]);
      // A client that asks the root for a resource anyway (one that ignores configurationRequired)
      // gets a 404 that is what its type says: the specification's JSON error, as under every
      // other resource folder on this host (hosts-client.test.ts), not the HTML 404 page.
      for (const missing of [
        'catalog/movie/films.json',
        'meta/movie/cfg:film-2.json',
        'stream/movie/cfg:film-2.json',
        'subtitles/movie/cfg:film-2.json',
      ]) {
        const response = await fetch(`${pages.url}${missing}`, { headers: { Origin: BROWSER_ORIGIN } });
        const body = await response.text();
        expect(response.status, missing).toBe(404);
        expect(response.headers.get('content-type'), missing).toBe('application/json; charset=utf-8');
        expect(body, `${missing}: the body of a 404 served as JSON`).toMatch(/^\{"error":/);
      }
    } finally {
      await pages.close();
    }
  }, 180_000);

  it('with configurationRequired false, the root manifest installs in the core (its walk is above)', async () => {
    const port = await freePort();
    const out = await buildFor(FIXTURE, `http://127.0.0.1:${port}/repo/`, 'github-pages');
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
    try {
      const details = await core.addonDetails(`${nginx.url}manifest.json`);
      expect(details.type).toBe('Ready');
      const events = await core.installDescriptor(details.type === 'Ready' ? details.content : undefined);
      expect(events.map((e) => e.args.event)).toEqual(['AddonInstalled', 'ProfilePushedToStorage']);
      expect(core.installedAddons()).toEqual([`${nginx.url}manifest.json`]);
      // Its configure page too, for changing the defaults.
      expect((await openConfigure(configureUrl(`${nginx.url}manifest.json`))).finalUrl).toBe(`${nginx.url}configure/`);
    } finally {
      await core.stop();
      await nginx.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// addon-gen serve

describe('serve answers the configurations', () => {
  it("each configuration's manifest and catalog, as JSON", async () => {
    const server = await startServer({ contentDir: FIXTURE, port: 0 });
    try {
      for (const [segment, catalog, ids] of [
        ['quality=sd,silent=true', 'silents', [FILM_1, FILM_2]],
        ['quality=sd,silent=false', 'films', [FILM_2]],
        ['quality=hd,silent=true', 'films', [FILM_1, FILM_2]],
        ['quality=hd,silent=false', 'films', [FILM_2]],
      ] as const) {
        const manifest = await fetch(`${server.url}${segment}/manifest.json`);
        expect(manifest.status, segment).toBe(200);
        expect(manifest.headers.get('content-type'), segment).toBe('application/json; charset=utf-8');
        expect(((await manifest.json()) as Json).behaviorHints, segment).toEqual({ configurable: true, configurationRequired: false });
        const list = await fetch(`${server.url}${segment}/catalog/movie/${catalog}.json`);
        expect(list.status, segment).toBe(200);
        expect(list.headers.get('content-type'), segment).toBe('application/json; charset=utf-8');
        expect(
          ((await list.json()) as Json).metas.map((m: Json) => m.id),
          segment,
        ).toEqual(ids);
      }
      // A catalog a configuration leaves out is not there.
      expect((await fetch(`${server.url}quality=sd,silent=false/catalog/movie/silents.json`)).status).toBe(404);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a subtitles request with extras under a configuration: its own file --like cloudflare, 404 as github-pages', async () => {
    // The id percent-encoded as the client does (encodeURIComponent), the segment as written.
    const request = (segment: string) => `${segment}/subtitles/movie/${encodeURIComponent(FILM_2)}/videoHash=abc.json`;
    const like = await startServer({ contentDir: FIXTURE, port: 0, like: 'cloudflare' });
    const files = await startServer({ contentDir: FIXTURE, port: 0 });
    try {
      for (const [segment, urls] of [
        ['quality=hd,silent=true', [EN, HD_ONLY]],
        ['quality=sd,silent=true', [EN]],
        ['quality=sd,silent=false', [EN]],
      ] as const) {
        const rewritten = await fetch(`${like.url}${request(segment)}`);
        expect(rewritten.status, segment).toBe(200);
        expect(rewritten.headers.get('content-type'), segment).toBe('application/json; charset=utf-8');
        expect(
          ((await rewritten.json()) as Json).subtitles.map((s: Json) => s.url),
          segment,
        ).toEqual(urls);
        const plain = await fetch(`${files.url}${request(segment)}`);
        expect(plain.status, segment).toBe(404);
        await plain.arrayBuffer();
      }
      // The root's own rule still holds.
      const root = await fetch(`${like.url}subtitles/movie/${encodeURIComponent(FILM_2)}/videoHash=abc.json`);
      expect(root.status).toBe(200);
      expect(((await root.json()) as Json).subtitles.map((s: Json) => s.url)).toEqual([EN, HD_ONLY]);
    } finally {
      await Promise.all([like.close(), files.close()]);
    }
  }, 60_000);
});
