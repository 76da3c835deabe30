// The configure page of an addon with `config` options (issue 29): a form of the options whose
// choice picks one of the pre-built configurations, at `{base}/{segment}/`. First the pages as
// rendered (which links, which form, escaping); then test/fixtures/configurable built for real and
// served under a sub-path, in headless Chromium: choose options, the links change, the manifest
// they lead to exists.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { renderPages, type ConfigurePage, type PageTemplates } from '../src/plan/page.js';
import { configurations, type ConfigOption } from '../src/shared/configurations.js';
import type { Manifest } from '../src/validate/schema.js';
import { removeOutput } from './support/content.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

const FIXTURE = fileURLToPath(new URL('fixtures/configurable/', import.meta.url));
const TEMPLATES = fileURLToPath(new URL('../templates/', import.meta.url));
const BASE = 'https://user.github.io/repo/';

const OPTIONS: ConfigOption[] = [
  { key: 'quality', type: 'select', title: 'Stream quality', options: ['sd', 'hd'], default: 'hd' },
  { key: 'silent', type: 'checkbox', title: 'Include silent films', default: true },
];
const CONFIGURATIONS = configurations(OPTIONS);
const SD_SOUND = CONFIGURATIONS.find((c) => c.segment === 'quality=sd,silent=false')!;

const MANIFEST: Manifest = {
  id: 'org.example.configurable',
  version: '1.0.0',
  name: 'Configurable',
  description: '',
  types: ['movie'],
  resources: [],
  catalogs: [],
  behaviorHints: { configurable: true },
};

async function templates(): Promise<PageTemplates> {
  const read = (name: string) => readFile(path.join(TEMPLATES, name), 'utf8');
  return {
    install: await read('index.html'),
    configure: await read('configure.html'),
    notFound: await read('404.html'),
    partials: { 'head.html': await read('head.html'), 'style.css': await read('style.css'), 'links.js': await read('links.js') },
  };
}

/** The pages rendered for `configure`, by path; `baseUrl` null: built without one. */
async function pagesOf(configure: ConfigurePage, baseUrl: string | null = BASE): Promise<Map<string, string>> {
  return new Map(renderPages(await templates(), MANIFEST, baseUrl ?? undefined, configure).map((p) => [p.path, p.body]));
}

function root(required = false): ConfigurePage {
  return { options: OPTIONS, required };
}

/** The form of a page with its markup's spacing squashed: `<option value="hd" selected>`, `<input … checked>`. */
function formOf(page: string): string {
  const form = /<form[\s\S]*?<\/form>/.exec(page)?.[0] ?? '';
  return form
    .replace(/\s+/g, ' ')
    .replace(/\s*\/?>/g, '>')
    .replace(/>\s+</g, '><');
}

/** The JSON data block of a page. */
function dataOf(page: string): unknown {
  return JSON.parse(/<script type="application\/json" id="addon-data">([\s\S]*?)<\/script>/.exec(page)![1]!);
}

/** Every `href` value of a page, and the copy field's value, `&amp;` decoded. */
function linksOf(page: string) {
  const attribute = (id: string, name: string) => new RegExp(`id="${id}"[^>]*?\\s${name}="([^"]*)"`).exec(page)?.[1]?.replaceAll('&amp;', '&');
  return {
    install: attribute('install', 'href'),
    web: attribute('web-install', 'href'),
    manifest: attribute('manifest-url', 'value'),
    manifestLink: attribute('manifest-link', 'href'),
    configure: attribute('configure-link', 'href'),
  };
}

function installLinksFor(manifestUrl: string) {
  return {
    install: manifestUrl.replace(/^https?:\/\//, 'stremio://'),
    web: `https://web.stremio.com/#/addons?addon=${encodeURIComponent(manifestUrl)}`,
    manifest: manifestUrl,
    manifestLink: manifestUrl,
  };
}

describe('the pages of an addon with config options', () => {
  it('at the root: installs the defaults, links to the configure page, whose form shows the defaults', async () => {
    const pages = await pagesOf(root());
    expect([...pages.keys()].sort()).toEqual(['404.html', 'configure/index.html', 'index.html']);
    const index = pages.get('index.html')!;
    // The root tree serves the defaults: its manifest is installable.
    expect(linksOf(index)).toEqual({ ...installLinksFor(`${BASE}manifest.json`), configure: `${BASE}configure/` });
    expect(index).toMatch(/Installs the default settings\. <a id="configure-link" href="[^"]*">Configure<\/a>/);

    const configure = pages.get('configure/index.html')!;
    expect(formOf(configure)).toBe(
      [
        '<form id="configure-form" class="options" autocomplete="off">',
        '<div class="field"><label for="option-0">Stream quality</label>',
        '<select id="option-0" name="quality"><option value="sd">sd</option><option value="hd" selected>hd</option></select></div>',
        '<div class="field field-checkbox"><input type="checkbox" id="option-1" name="silent" checked>',
        '<label for="option-1">Include silent films</label></div>',
        '</form>',
      ].join(''),
    );
    expect(configure).not.toContain('Nothing to configure');
    expect(configure).not.toContain('reinstall-note');
    expect(linksOf(configure)).toEqual({ ...installLinksFor(`${BASE}quality=hd,silent=true/manifest.json`), configure: undefined });
    expect(dataOf(configure)).toEqual({
      id: MANIFEST.id,
      // Each value's part of the folder name, written by hand: the page joins them with the separator.
      options: [
        {
          key: 'quality',
          type: 'select',
          parts: [
            ['sd', 'quality=sd'],
            ['hd', 'quality=hd'],
          ],
        },
        {
          key: 'silent',
          type: 'checkbox',
          parts: [
            [true, 'silent=true'],
            [false, 'silent=false'],
          ],
        },
      ],
      separator: ',',
      root: '../',
    });
  });

  it('at the root of an addon that must be configured: no install link, a Configure button', async () => {
    const pages = await pagesOf(root(true));
    expect([...pages.keys()].sort()).toEqual(['404.html', 'configure/index.html', 'index.html']);
    const index = pages.get('index.html')!;
    expect(index).not.toContain('href="stremio://');
    expect(index).not.toContain('href="https://web.stremio.com');
    expect(index).not.toMatch(/id="(install|web-install|manifest-url|manifest-link|copy)"/);
    expect(index).not.toMatch(/(href|value)="[^"]*manifest\.json"/);
    expect(index).toContain(`<a class="button primary" id="configure-link" href="${BASE}configure/">Configure</a>`);
    expect(index).toContain('Configurable must be configured before it can be installed');
    // The configure page itself is the same as when the defaults can be installed.
    expect(linksOf(pages.get('configure/index.html')!).install).toBe('stremio://user.github.io/repo/quality=hd,silent=true/manifest.json');
  });

  it("in a configuration's tree: its install page and its configure page, showing its values", async () => {
    for (const required of [false, true]) {
      const pages = await pagesOf({ ...root(required), current: SD_SOUND });
      expect([...pages.keys()].sort()).toEqual(['configure/index.html', 'index.html']);
      const tree = `${BASE}quality=sd,silent=false/`;
      const index = pages.get('index.html')!;
      expect(linksOf(index)).toEqual({ ...installLinksFor(`${tree}manifest.json`), configure: `${tree}configure/` });
      expect(index).toContain('>Change configuration</a>');
      expect(index).toContain('Stream quality: <b>sd</b>');
      expect(index).toContain('Include silent films: <b>no</b>');

      const configure = pages.get('configure/index.html')!;
      expect(formOf(configure)).toContain('<option value="sd" selected>sd</option><option value="hd">hd</option>');
      expect(formOf(configure)).toContain('<input type="checkbox" id="option-1" name="silent">');
      expect(configure).toContain('id="reinstall-note"');
      expect(linksOf(configure)).toMatchObject(installLinksFor(`${tree}manifest.json`));
      expect(configure).toContain(`<a id="home" href="${tree}">`);
      expect(dataOf(configure)).toMatchObject({ root: '../../' });
    }
  });

  it('without a base URL, links relative to each page', async () => {
    const rootPages = await pagesOf(root(), null);
    expect(linksOf(rootPages.get('index.html')!)).toMatchObject({ install: 'manifest.json', manifest: '', configure: 'configure/' });
    expect(linksOf(rootPages.get('configure/index.html')!)).toMatchObject({
      install: '../quality=hd,silent=true/manifest.json',
      manifest: '',
      manifestLink: '../quality=hd,silent=true/manifest.json',
    });
    const tree = await pagesOf({ ...root(), current: SD_SOUND }, null);
    expect(linksOf(tree.get('index.html')!)).toMatchObject({ install: 'manifest.json', configure: 'configure/' });
    expect(linksOf(tree.get('configure/index.html')!)).toMatchObject({ install: '../../quality=sd,silent=false/manifest.json' });
  });

  it('escapes option titles and values, keeps the data block closed, and allows only its own script', async () => {
    const hostile = `<script>window.__xss = 1</script> & "q" 'x'`;
    const options: ConfigOption[] = [
      { key: 'cut', type: 'select', title: hostile, options: [hostile, 'plain'], default: hostile },
      { key: 'x', type: 'checkbox', title: `<b onclick="x()">B</b>`, default: false },
    ];
    const pages = new Map(renderPages(await templates(), MANIFEST, BASE, { options, required: false }).map((p) => [p.path, p.body]));
    const configure = pages.get('configure/index.html')!;
    const escaped = '&lt;script&gt;window.__xss = 1&lt;/script&gt; &amp; &quot;q&quot; &#39;x&#39;';
    expect(formOf(configure)).toContain(`<label for="option-0">${escaped}</label>`);
    expect(formOf(configure)).toContain(`<option value="${escaped}" selected>${escaped}</option><option value="plain">plain</option>`);
    expect(formOf(configure)).toContain('<label for="option-1">&lt;b onclick=&quot;x()&quot;&gt;B&lt;/b&gt;</label>');
    expect(configure).not.toContain('<script>window');
    // The data block and the page's own script, nothing else; the data parses back as it was.
    expect(configure.match(/<script/g)).toHaveLength(2);
    expect(dataOf(configure)).toMatchObject({
      options: [
        {
          key: 'cut',
          type: 'select',
          parts: [
            [hostile, 'cut=script-window.__xss-1-script-q-x'],
            ['plain', 'cut=plain'],
          ],
        },
        {
          key: 'x',
          type: 'checkbox',
          parts: [
            [true, 'x=true'],
            [false, 'x=false'],
          ],
        },
      ],
    });
    for (const [file, page] of pages) {
      const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)![1]!.replaceAll('&#39;', "'");
      const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
      expect(csp, file).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
      expect(csp, file).toContain("form-action 'none'");
      expect(page, file).not.toContain('{{');
    }
  });

  it('without configure, a configurable addon keeps the "Nothing to configure" page', async () => {
    const pages = new Map(renderPages(await templates(), MANIFEST, BASE).map((p) => [p.path, p.body]));
    expect([...pages.keys()].sort()).toEqual(['404.html', 'configure/index.html', 'index.html']);
    expect(pages.get('configure/index.html')).toContain('Nothing to configure');
    expect(pages.get('configure/index.html')).not.toContain('<form');
    expect(pages.get('index.html')).not.toContain('id="configure-link"');
    expect(linksOf(pages.get('configure/index.html')!)).toMatchObject(installLinksFor(`${BASE}manifest.json`));
  });
});

// ---------------------------------------------------------------------------------------------
// In the browser

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the configure page of test/fixtures/configurable in headless Chromium, under a sub-path', () => {
  let browser: Browser;
  let out: string;
  let server: StaticServer;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
    // A folder for the life of this file (tempDir's cleanup runs after each test). Built without a
    // base URL: the links in the browser exist only because the page computed them.
    out = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-configure-'));
    const result = await build({ contentDir: FIXTURE, outDir: out, reuse: false });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    server = await startStaticServer(out, { prefix: '/repo/' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (out) await removeOutput(out);
  });

  /** A page that records console errors, script errors and CSP violations, and refuses requests leaving 127.0.0.1. */
  async function open(options: Parameters<Browser['newContext']>[0] = {}) {
    const context = await browser.newContext(options);
    const problems: string[] = [];
    const outside: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).hostname === '127.0.0.1' || url.startsWith('data:')) return route.fallback();
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`script: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP: ${event.violatedDirective} ${event.blockedURI}`));
    });
    const done = async () => {
      await context.close();
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
    };
    return { page, done };
  }

  async function links(page: Page) {
    return {
      install: await page.getAttribute('#install', 'href'),
      web: await page.getAttribute('#web-install', 'href'),
      manifest: await page.inputValue('#manifest-url'),
      manifestLink: await page.getAttribute('#manifest-link', 'href'),
    };
  }

  /** The manifest at `url`, fetched by the page from its own origin. */
  async function manifestAt(page: Page, url: string): Promise<{ status: number; id?: string; configurable?: boolean }> {
    return page.evaluate(async (u) => {
      const response = await fetch(u);
      const body = response.ok ? ((await response.json()) as { id: string; behaviorHints?: { configurable?: boolean } }) : undefined;
      return { status: response.status, id: body?.id, configurable: body?.behaviorHints?.configurable };
    }, url);
  }

  it('shows the defaults, and the links follow the chosen options to a manifest that exists', async () => {
    const { page, done } = await open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(`${server.url}configure/`);
    expect(await page.inputValue('select#option-0')).toBe('hd');
    expect(await page.getByLabel('Stream quality').inputValue()).toBe('hd');
    expect(await page.getByLabel('Include silent films').isChecked()).toBe(true);
    expect(await links(page)).toEqual(installLinksFor(`${server.url}quality=hd,silent=true/manifest.json`));
    expect(await manifestAt(page, `${server.url}quality=hd,silent=true/manifest.json`)).toMatchObject({
      status: 200,
      id: 'org.addongen.configurable',
    });

    await page.getByLabel('Stream quality').selectOption('sd');
    expect(await links(page)).toEqual(installLinksFor(`${server.url}quality=sd,silent=true/manifest.json`));
    await page.getByLabel('Include silent films').uncheck();
    const chosen = `${server.url}quality=sd,silent=false/manifest.json`;
    expect(await links(page)).toEqual(installLinksFor(chosen));
    expect(await manifestAt(page, chosen)).toMatchObject({ status: 200, id: 'org.addongen.configurable', configurable: true });
    // Every choice leads to a manifest of the addon.
    for (const { segment } of CONFIGURATIONS) {
      expect(await manifestAt(page, `${server.url}${segment}/manifest.json`), segment).toMatchObject({
        status: 200,
        id: 'org.addongen.configurable',
      });
    }
    // Enter in the form sends nothing: the page stays.
    await page.getByLabel('Stream quality').press('Enter');
    expect(page.url()).toBe(`${server.url}configure/`);
    // Nothing is wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await done();
  });

  it("on an installed configuration's configure page ({base}/{segment}/configure), shows its values", async () => {
    const { page, done } = await open();
    // The client opens the transport URL with manifest.json replaced by configure: no slash.
    for (const url of [`${server.url}quality=sd,silent=false/configure`, `${server.url}quality=sd,silent=false/configure/`]) {
      await page.goto(url);
      expect(await page.getByLabel('Stream quality').inputValue()).toBe('sd');
      expect(await page.getByLabel('Include silent films').isChecked()).toBe(false);
      expect(await links(page)).toEqual(installLinksFor(`${server.url}quality=sd,silent=false/manifest.json`));
      expect(await page.isVisible('#reinstall-note')).toBe(true);
      expect(await page.getAttribute('#home', 'href')).toBe(`${server.url}quality=sd,silent=false/`);
    }
    await page.getByLabel('Stream quality').selectOption('hd');
    expect(await links(page)).toEqual(installLinksFor(`${server.url}quality=hd,silent=false/manifest.json`));
    await done();
  });

  it('the install pages lead to the configure pages', async () => {
    const { page, done } = await open();
    // The root serves the defaults: install links for its own manifest, and a Configure link.
    for (const url of [server.url, server.url.slice(0, -1)]) {
      if (url !== server.url)
        await page.route(url, async (route) => route.fulfill({ contentType: 'text/html', body: await readFile(path.join(out, 'index.html')) }));
      await page.goto(url);
      expect(await links(page)).toEqual(installLinksFor(`${server.url}manifest.json`));
      expect(await page.getAttribute('#configure-link', 'href')).toBe(`${server.url}configure/`);
    }
    await page.getByRole('link', { name: 'Configure' }).click();
    await page.waitForURL(`${server.url}configure/`);
    expect(await page.getByLabel('Stream quality').inputValue()).toBe('hd');
    // A configuration's install page: its own manifest, and a link to change it.
    await page.goto(`${server.url}quality=sd,silent=false/`);
    expect(await links(page)).toEqual(installLinksFor(`${server.url}quality=sd,silent=false/manifest.json`));
    await page.getByRole('link', { name: 'Change configuration' }).click();
    await page.waitForURL(`${server.url}quality=sd,silent=false/configure/`);
    expect(await page.getByLabel('Include silent films').isChecked()).toBe(false);
    await done();
  });

  it('keeps the links written at build time without JavaScript', async () => {
    const { page, done } = await open({ javaScriptEnabled: false });
    await page.goto(`${server.url}quality=sd,silent=false/configure/`);
    // Built without a base URL: links relative to the page, to the configuration it shows.
    expect(await page.getAttribute('#install', 'href')).toBe('../../quality=sd,silent=false/manifest.json');
    expect(await page.isVisible('#copy')).toBe(false);
    await done();
  });
});
