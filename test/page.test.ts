// The install, configure and 404 pages: escaping, which pages exist, self-containment and the
// links written at build time; then the pages in headless Chromium under a sub-path, where the
// links must come from the page's own URL and no request may leave 127.0.0.1.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { jsonForScript, renderPage, withPartials } from '../src/plan/page.js';
import type { Manifest } from '../src/validate/schema.js';
import { addonYaml, contentDir, readTree, removeOutput, tempDir } from './support/content.js';
import { EXAMPLE_DIR } from './support/example.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

const HOSTILE_NAME = `Evil <script>window.__xss = 'name'</script> & "Co"`;
const HOSTILE_DESCRIPTION = `<img src=x onerror="window.__xss='description'"> </script><!-- it's 'quoted'`;
const HOSTILE_CATALOG = `<b onclick="window.__xss='catalog'">Films</b>`;
const HOSTILE_GENRE = `<i>Noir`;
const HOSTILE_LOGO = `https://example.org/logo.png?a=1&b="><script>window.__xss='logo'</script>`;

/** An addon whose every shown value tries to break out of its place in the page. */
function hostileContent(extra = '') {
  return contentDir({
    'addon.yaml': [
      'id: org.example.hostile',
      'version: 1.0.0',
      `name: ${JSON.stringify(HOSTILE_NAME)}`,
      `description: ${JSON.stringify(HOSTILE_DESCRIPTION)}`,
      'catalogs:',
      `  - { id: films, type: movie, name: ${JSON.stringify(HOSTILE_CATALOG)}, genres: auto }`,
      extra,
    ].join('\n'),
    'movies.yaml': `- { id: "h:1", type: movie, name: One, genres: [${JSON.stringify(HOSTILE_GENRE)}], streams: [{ url: "https://example.org/1.mp4" }] }\n`,
  });
}

async function buildPages(dir: string, baseUrl?: string): Promise<Map<string, string>> {
  const out = await tempDir();
  const result = await build({ contentDir: dir, outDir: out, baseUrl });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const pages = new Map<string, string>();
  // The 404.html of each resource folder is Cloudflare Pages' JSON error, not a page.
  for (const [file, bytes] of await readTree(out)) {
    if (file.endsWith('.html') && !/^(catalog|meta|stream|subtitles)\//.test(file)) pages.set(file, bytes.toString('utf8'));
  }
  return pages;
}

/** Every `src`/`href` value of a page, entities decoded. */
function urlsIn(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => decodeEntities(m[1]!));
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
  return text.replace(/&(#\d+|[a-z]+);/g, (entity, name: string) =>
    name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : (named[name] ?? entity),
  );
}

describe('the pages written by a build', () => {
  it('escapes every value taken from the content: name, description, catalog names, genres, logo URL', async () => {
    const pages = await buildPages(await hostileContent(`logo: ${JSON.stringify(HOSTILE_LOGO)}\nbehaviorHints: { configurable: true }`));
    expect([...pages.keys()].sort()).toEqual(['404.html', 'configure/index.html', 'index.html']);
    const index = pages.get('index.html')!;
    expect(index).toContain('<h1 id="name">Evil &lt;script&gt;window.__xss = &#39;name&#39;&lt;/script&gt; &amp; &quot;Co&quot;</h1>');
    expect(index).toContain(
      '<p class="description" id="description">&lt;img src=x onerror=&quot;window.__xss=&#39;description&#39;&quot;&gt; &lt;/script&gt;&lt;!-- it&#39;s &#39;quoted&#39;</p>',
    );
    expect(index).toContain('<span class="catalog-name">&lt;b onclick=&quot;window.__xss=&#39;catalog&#39;&quot;&gt;Films&lt;/b&gt;</span>');
    expect(index).toContain('<span class="genres">&lt;i&gt;Noir</span>');
    expect(index).toContain(
      '<img class="logo" src="https://example.org/logo.png?a=1&amp;b=&quot;&gt;&lt;script&gt;window.__xss=&#39;logo&#39;&lt;/script&gt;"',
    );
    for (const [file, page] of pages) {
      // Only the template's own script elements (and the 404 page's data block) are in the page.
      expect(page.match(/<script/g)?.length, file).toBe(file === '404.html' ? 2 : 1);
      expect(page, file).not.toContain("__xss='");
      expect(page, file).not.toContain('{{');
    }
  });

  it('writes the addon data for scripts as JSON that cannot close its script element', () => {
    const hostile = '</script><script>alert(1)</script><!-- \u2028 & >';
    const json = jsonForScript({ name: hostile });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ name: hostile });
  });

  it('writes configure/index.html only for a configurable addon, with links one level up', async () => {
    const base = 'https://user.github.io/repo/';
    const plain = await buildPages(await contentDir({ 'addon.yaml': addonYaml() }), base);
    expect([...plain.keys()].sort()).toEqual(['404.html', 'index.html']);
    const configurable = await buildPages(await contentDir({ 'addon.yaml': addonYaml('behaviorHints: { configurable: true }') }), base);
    const configure = configurable.get('configure/index.html')!;
    expect(configure).toContain('href="stremio://user.github.io/repo/manifest.json"');
    expect(configure).toContain('<a id="home" href="https://user.github.io/repo/">');
    expect(configure).toContain('Nothing to configure');
  });

  it('writes the install links for the base URL, or links relative to the page without one', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml('behaviorHints: { configurable: true }') });
    const index = (await buildPages(dir, 'https://user.github.io/repo/')).get('index.html')!;
    expect(index).toContain('id="install" href="stremio://user.github.io/repo/manifest.json"');
    expect(index).toContain('id="web-install" href="https://web.stremio.com/#/addons?addon=https%3A%2F%2Fuser.github.io%2Frepo%2Fmanifest.json"');
    expect(index).toContain('value="https://user.github.io/repo/manifest.json"');

    const relative = await buildPages(dir);
    expect(relative.get('index.html')).toContain('id="install" href="manifest.json"');
    expect(relative.get('index.html')).toContain('value=""');
    expect(relative.get('configure/index.html')).toContain('id="install" href="../manifest.json"');
    expect(relative.get('404.html')).toContain('id="home" href="/"');
  });

  it('loads nothing from elsewhere: no external script, style or font, and a policy that forbids them', async () => {
    const base = 'https://user.github.io/repo/';
    const dir = await contentDir({ 'addon.yaml': addonYaml('logo: https://cdn.example.org/logo.png\nbehaviorHints: { configurable: true }') });
    for (const [file, page] of await buildPages(dir, base)) {
      expect(page, file).not.toMatch(/<script[^>]*\ssrc=/i);
      expect(page, file).not.toMatch(/<link[^>]*rel="?(stylesheet|preload|preconnect|dns-prefetch)/i);
      for (const [, style] of page.matchAll(/<style>([\s\S]*?)<\/style>/g)) expect(style, file).not.toMatch(/@import|@font-face|url\(/i);
      // Links to follow, not to load: the install links, this addon's own files, and its logo.
      for (const url of urlsIn(page)) {
        const allowed =
          url.startsWith('stremio://') ||
          url.startsWith('https://web.stremio.com/#/addons?addon=') ||
          url.startsWith(base) ||
          url === 'https://cdn.example.org/logo.png';
        expect(allowed, `${file}: ${url}`).toBe(true);
      }
      // The policy allows exactly the page's own inline script, by hash.
      const csp = decodeEntities(/http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)![1]!);
      const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
      const hash = createHash('sha256').update(script).digest('base64');
      expect(csp, file).toContain(`script-src 'sha256-${hash}'`);
      expect(csp, file).toContain("default-src 'none'");
    }
  });

  it('refuses templates with an unknown placeholder, a stray {{ or a placeholder inside a script', () => {
    const manifest: Manifest = { id: 'org.example.t', version: '1.0.0', name: 'T', description: '', types: [], resources: [], catalogs: [] };
    expect(renderPage('install', '<h1>{{name}}</h1>', manifest)).toBe('<h1>T</h1>');
    expect(withPartials('install', '<style>{{> a.css}}</style>', { 'a.css': 'p{}' })).toBe('<style>p{}</style>');
    expect(() => withPartials('install', '{{> nope.css}}', {})).toThrow(/unknown partial/);
    expect(() => renderPage('install', '<h1>{{nmae}}</h1>', manifest)).toThrow(/unknown placeholder \{\{nmae\}\}/);
    expect(() => renderPage('install', '<h1>{{ name</h1>', manifest)).toThrow(/not a \{\{placeholder\}\}/);
    expect(() => renderPage('install', '<script>var n = "{{name}}"</script>', manifest)).toThrow(/JSON block/);
    expect(() => renderPage('install', '<script src="https://cdn.example.org/x.js"></script>', manifest)).toThrow(/inline/);
  });
});

// ---------------------------------------------------------------------------------------------
// In the browser

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

describe('the install page in headless Chromium', () => {
  let browser: Browser;
  let folders: string[] = [];
  let example: StaticServer;
  let elsewhere: StaticServer;
  let hostile: StaticServer;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
    await mkdir(ARTIFACTS, { recursive: true });
    // Folders for the life of this file (tempDir's cleanup runs after each test).
    const exampleOut = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-page-'));
    const hostileOut = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-page-'));
    folders = [exampleOut, hostileOut];
    // The example, built for where it is served (so its logo loads), and also served under a
    // second address it was not built for, where only the page's script can get the links right.
    example = await startStaticServer(exampleOut, { prefix: '/repo/' });
    elsewhere = await startStaticServer(exampleOut, { prefix: '/other/sub/' });
    hostile = await startStaticServer(hostileOut, { prefix: '/repo/' });
    const built = await Promise.all([
      build({ contentDir: EXAMPLE_DIR, outDir: exampleOut, baseUrl: example.url }),
      build({ contentDir: await hostileContent('behaviorHints: { configurable: true }'), outDir: hostileOut }),
    ]);
    expect(built.map((b) => b.ok)).toEqual([true, true]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([example, elsewhere, hostile].map((s) => s?.close()));
    await Promise.all(folders.map(removeOutput));
  });

  /**
   * A page in a fresh context that records every request (and refuses those that would leave
   * 127.0.0.1) and every console error, script error and dialog.
   */
  async function open(options: Parameters<Browser['newContext']>[0] = {}) {
    const context = await browser.newContext(options);
    const requests: string[] = [];
    const problems: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requests.push(url);
      return new URL(url).hostname === '127.0.0.1' || url.startsWith('data:') ? route.fallback() : route.abort();
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`script: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return { context, page, requests, problems };
  }

  async function links(page: Page) {
    return {
      install: await page.getAttribute('#install', 'href'),
      web: await page.getAttribute('#web-install', 'href'),
      manifest: await page.inputValue('#manifest-url'),
    };
  }

  function expectLinksFor(found: Awaited<ReturnType<typeof links>>, manifestUrl: string) {
    expect(found).toEqual({
      install: manifestUrl.replace('http://', 'stremio://'),
      web: `https://web.stremio.com/#/addons?addon=${encodeURIComponent(manifestUrl)}`,
      manifest: manifestUrl,
    });
  }

  async function closeAll(context: BrowserContext, requests: string[], problems: string[]) {
    await context.close();
    expect(problems).toEqual([]);
    expect(requests.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
  }

  it('links to the manifest under its sub-path, loads only from 127.0.0.1, and fits a phone', async () => {
    const { context, page, requests, problems } = await open({ ...PHONE, colorScheme: 'light' });
    await page.goto(example.url, { waitUntil: 'load' });
    expectLinksFor(await links(page), `${example.url}manifest.json`);
    expect(await page.textContent('h1')).toBe('Public Domain Cinema');
    // The example's five catalogs (the last of the playlist's channels) and its addon collection.
    expect(await page.locator('.catalogs li').count()).toBe(6);
    // Where each catalog shows: the films and serials are searched, the archive is off the Board.
    expect(await page.locator('.catalogs li .tag').allTextContents()).toEqual([
      'movie',
      'searchable',
      'movie',
      'series',
      'searchable',
      'movie',
      'in Discover',
      'tv',
      'addons',
    ]);
    // The logo loaded, from the addon's own assets.
    expect(await page.$eval('img.logo', (img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(requests).toContain(`${example.url}assets/images/logo.png`);
    // Nothing is wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(ARTIFACTS, 'install-page-phone.png'), fullPage: true });
    await closeAll(context, requests, problems);
  });

  it('computes the links from its own URL: a folder without its slash, index.html, another address', async () => {
    const { context, page, requests, problems } = await open({ colorScheme: 'dark', viewport: { width: 1024, height: 900 } });
    // Some hosts answer /repo with the folder's index.html instead of redirecting to /repo/.
    const indexHtml = await readFile(path.join(folders[0]!, 'index.html'), 'utf8');
    await page.route(example.url.slice(0, -1), (route) => route.fulfill({ contentType: 'text/html', body: indexHtml }));
    for (const url of [example.url.slice(0, -1), `${example.url}index.html`, `${example.url}?utm=x#top`]) {
      await page.goto(url);
      expectLinksFor(await links(page), `${example.url}manifest.json`);
    }
    // Built for /repo/ on one port, opened at /other/sub/ on another: the page's own URL wins.
    await page.goto(`${elsewhere.url}index.html`);
    expectLinksFor(await links(page), `${elsewhere.url}manifest.json`);
    await page.goto(example.url);
    await page.screenshot({ path: path.join(ARTIFACTS, 'install-page-desktop-dark.png'), fullPage: true });
    await closeAll(context, requests, problems);
  });

  it('keeps the links written at build time when scripts are off', async () => {
    const { context, page, requests, problems } = await open({ javaScriptEnabled: false });
    await page.goto(`${elsewhere.url}index.html`);
    expectLinksFor(await links(page), `${example.url}manifest.json`);
    expect(await page.isVisible('#copy')).toBe(false);
    expect(await page.isVisible('noscript p')).toBe(true);
    await closeAll(context, requests, problems);
  });

  it('copies the manifest URL', async () => {
    const { context, page, requests, problems } = await open();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(elsewhere.url).origin });
    await page.goto(elsewhere.url);
    await page.click('#copy');
    await expect.poll(() => page.textContent('#copy')).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${elsewhere.url}manifest.json`);
    await closeAll(context, requests, problems);
  });

  it('shows content containing <script> as text and runs none of it', async () => {
    const { context, page, requests, problems } = await open(PHONE);
    await page.goto(hostile.url);
    expect(await page.textContent('h1')).toBe(HOSTILE_NAME);
    expect(await page.textContent('#description')).toBe(HOSTILE_DESCRIPTION);
    expect(await page.textContent('.catalog-name')).toBe(HOSTILE_CATALOG);
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    // Built without a base URL: the links exist only because the page computed them.
    expectLinksFor(await links(page), `${hostile.url}manifest.json`);
    await closeAll(context, requests, problems);
  });

  it('computes the configure page links one level up, with or without the trailing slash', async () => {
    const { context, page, requests, problems } = await open(PHONE);
    // The client opens {base}/configure.
    for (const url of [`${hostile.url}configure`, `${hostile.url}configure/`, `${hostile.url}configure/index.html`]) {
      await page.goto(url);
      expectLinksFor(await links(page), `${hostile.url}manifest.json`);
      expect(await page.getAttribute('#home', 'href')).toBe(hostile.url);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'configure-page-phone.png'), fullPage: true });
    await closeAll(context, requests, problems);
  });

  it('finds the install page from a 404 at any depth', async () => {
    const { context, page, requests, problems } = await open(PHONE);
    // As a host does: any unknown path answers with 404.html and status 404. This addon was built
    // without a base URL, so only the page's search can find its install page.
    const notFound = await readFile(path.join(folders[1]!, '404.html'), 'utf8');
    const missing = `${hostile.url}catalog/movie/nope.json`;
    await page.route(missing, (route) => route.fulfill({ status: 404, contentType: 'text/html', body: notFound }));
    await page.goto(missing);
    await expect.poll(() => page.getAttribute('#home', 'href')).toBe(hostile.url);
    expect(await page.textContent('h1')).toBe(HOSTILE_NAME);
    await page.screenshot({ path: path.join(ARTIFACTS, '404-page-phone.png'), fullPage: true });
    // It asked the folders above, nearest first, until it found the manifest with the addon's id.
    expect(requests.filter((url) => url.endsWith('manifest.json'))).toEqual([
      `${hostile.url}catalog/movie/manifest.json`,
      `${hostile.url}catalog/manifest.json`,
      `${hostile.url}manifest.json`,
    ]);
    // The answers 404 to the page and to the search for the manifest are not errors of the page.
    await closeAll(
      context,
      requests,
      problems.filter((p) => !p.includes('404')),
    );
  });
});
