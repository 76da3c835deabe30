// The addon's web pages (install page, configure page, 404 page) rendered from the templates in
// templates/: each {{placeholder}} becomes a value, HTML-escaped unless it is a fragment built here.
import { createHash } from 'node:crypto';
import {
  defaultConfiguration,
  SEGMENT_SEPARATOR,
  segmentParts,
  type ConfigOption,
  type ConfigValues,
  type Configuration,
} from '../shared/configurations.js';
import { MANIFEST_FILE, stremioLink, webInstallLink } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';

/**
 * The text of templates/index.html, configure.html and 404.html, and the partials they share:
 * file name -> text, inserted where a template says `{{> name}}` (the package's own text, trusted).
 */
export interface PageTemplates {
  install: string;
  configure: string;
  notFound: string;
  partials: Record<string, string>;
}

export type PageKind = Exclude<keyof PageTemplates, 'partials'>;

export interface PageFile {
  /** Path below the output folder. */
  path: string;
  body: string;
}

/** Where each page is written. The client opens `{base}/configure` for a configurable addon. */
export const PAGE_PATHS: Record<PageKind, string> = {
  install: 'index.html',
  configure: 'configure/index.html',
  notFound: '404.html',
};

/** Genres listed per catalog on the install page; the rest are counted. */
const GENRES_SHOWN = 12;

/**
 * The configure page of an addon with `config` options (issue 29): a form of the options, whose
 * choice picks one of the pre-built configurations, each a tree of its own at `{base}/{segment}/`.
 */
export interface ConfigurePage {
  options: readonly ConfigOption[];
  /** The configuration whose tree the pages are in; undefined for the addon's root pages. */
  current?: Configuration;
  /** behaviorHints.configurationRequired: the root manifest cannot be installed; its pages lead to the configure page. */
  required: boolean;
}

/**
 * The pages of an addon: index.html and 404.html, and configure/index.html when it is configurable.
 * With `configure.current`, the pages of that configuration's tree, with paths relative to the
 * tree: its install page and its configure page, no 404.html. `baseUrl` is the addon root's.
 */
export function renderPages(templates: PageTemplates, manifest: Manifest, baseUrl?: string, configure?: ConfigurePage): PageFile[] {
  const kinds: PageKind[] = configure?.current ? ['install'] : ['install', 'notFound'];
  if (manifest.behaviorHints?.configurable || configure) kinds.push('configure');
  return kinds.map((kind) => ({
    path: PAGE_PATHS[kind],
    body: renderPage(kind, withPartials(kind, templates[kind], templates.partials), manifest, baseUrl, configure),
  }));
}

/**
 * Inserts the shared partials (`{{> head.html}}`, `{{> style.css}}`, `{{> links.js}}`) first, so
 * that script hashes and placeholder checks see each page as it will be served.
 */
export function withPartials(kind: PageKind, template: string, partials: Record<string, string>): string {
  return template.replace(/\{\{>\s*([\w.-]+)\s*\}\}/g, (_match, name: string) => {
    const partial = partials[name];
    if (partial === undefined) throw new Error(`${kind} template: unknown partial {{> ${name}}}`);
    return partial;
  });
}

/**
 * One page: `template` with every `{{name}}` replaced by its value (see `pageValues`). Throws on a
 * placeholder it does not know and on a stray `{{`, so nothing of the template syntax reaches the
 * output; values are inserted once and never scanned again.
 */
export function renderPage(kind: PageKind, template: string, manifest: Manifest, baseUrl?: string, configure?: ConfigurePage): string {
  const values = pageValues(kind, manifest, baseUrl, scriptHashes(kind, template), configure);
  if (template.replace(PLACEHOLDER, '').includes('{{')) throw new Error(`${kind} template: a "{{" that is not a {{placeholder}}`);
  return template.replace(PLACEHOLDER, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) {
      throw new Error(`${kind} template: unknown placeholder {{${key}}}; known: ${Object.keys(values).join(', ')}`);
    }
    return value instanceof Html ? value.text : escapeHtml(value);
  });
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/** The links of one manifest: to install it, and to show it. */
interface InstallLinks {
  /** The manifest's URL when the base URL is known; '' when not (the page's script fills it in). */
  manifestUrl: string;
  manifestHref: string;
  installHref: string;
  webInstallHref: string;
}

/** The links of the manifest at `path` below the base URL, or relative to the page without one. */
function installLinks(path: string, baseUrl: string | undefined, relativeBase: string): InstallLinks {
  // new URL encodes what a path must not hold, as the browser does with the page's script.
  const manifestUrl = baseUrl === undefined ? undefined : new URL(path, baseUrl).href;
  const manifestHref = manifestUrl ?? relativeBase + path;
  return {
    manifestUrl: manifestUrl ?? '',
    manifestHref,
    installHref: manifestUrl ? stremioLink(manifestUrl) : manifestHref,
    webInstallHref: manifestUrl ? webInstallLink(manifestUrl) : manifestHref,
  };
}

/**
 * The placeholders and their values. Links are computed here from the base URL when it is known
 * (the fallback without JavaScript); the page's script recomputes them from the page's own URL.
 */
export function pageValues(
  kind: PageKind,
  manifest: Manifest,
  baseUrl: string | undefined,
  hashes: string[] = [],
  configure?: ConfigurePage,
): Record<string, string | Html> {
  const current = configure?.current;
  // The folder of the page's tree: the addon root's, or the configuration's below it.
  const treeBase = baseUrl !== undefined && current ? new URL(`${current.segment}/`, baseUrl).href : baseUrl;
  // Without a base URL, links relative to the page: right when it is opened at its folder's URL.
  const relativeBase = { install: '', configure: '../', notFound: '/' }[kind];
  const links = installLinks(MANIFEST_FILE, treeBase, relativeBase);
  const homeHref = treeBase ?? (relativeBase || './');
  const configureHref = treeBase === undefined ? `${relativeBase}configure/` : `${treeBase}configure/`;
  let install: Html;
  let configureSection = html``;
  let configureData = html``;
  if (kind === 'configure' && configure) {
    // The form's links are those of the configuration it shows first.
    const chosen = prefilled(configure);
    // From the page's folder to the addon root: configure/ is one level below its tree.
    const root = current ? '../../' : '../';
    install = installFragment(installLinks(`${chosen.segment}/${MANIFEST_FILE}`, baseUrl, root));
    configureSection = formFragment(configure, chosen.values);
    configureData = html`<script type="application/json" id="addon-data">
      ${new Html(
        jsonForScript({
          id: manifest.id,
          // Each value's part of a segment, to be joined in the order of the options: the data of a
          // page grows with the number of values, not with the number of their combinations.
          options: configure.options.map((option) => ({ key: option.key, type: option.type, parts: [...segmentParts(option)] })),
          separator: SEGMENT_SEPARATOR,
          root,
        }),
      )}
    </script>`;
  } else if (kind === 'configure') {
    install = installFragment(links);
    configureSection = html`<h2>Nothing to configure</h2>
      <p>${manifest.name} is a static addon: every viewer gets the same files, so there are no settings to choose. Install it as it is:</p>`;
  } else if (kind === 'install' && configure?.required && !current) {
    install = html`<p class="required">${manifest.name} must be configured before it can be installed: choose its settings first.</p>
      <div class="actions">
        <a class="button primary" id="configure-link" href="${configureHref}">Configure</a>
      </div>`;
  } else if (kind === 'install' && configure) {
    const summary = current
      ? html`Installs with these settings: ${settingsFragment(configure.options, current.values)}.`
      : html`Installs the default settings.`;
    install = html`${installFragment(links)}
      <p class="configured">${summary} <a id="configure-link" href="${configureHref}">${current ? 'Change configuration' : 'Configure'}</a></p>`;
  } else {
    install = installFragment(links);
  }
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    types: manifest.types.join(' · '),
    logo: logoFragment(manifest),
    iconHref: manifest.logo ?? 'data:,',
    badges: badgesFragment(manifest),
    catalogs: catalogsFragment(manifest),
    ...links,
    install,
    configure: configureSection,
    configureData,
    homeHref,
    data: new Html(jsonForScript({ id: manifest.id })),
    csp: contentSecurityPolicy(hashes),
  };
}

/** The configuration the form shows when the page opens: the current one, else the defaults'. */
function prefilled(configure: ConfigurePage): Configuration {
  return configure.current ?? defaultConfiguration(configure.options);
}

// ---------------------------------------------------------------------------------------------
// Escaping

/** Markup that is inserted as it is: only built by `html`, which escapes what it interpolates. */
export class Html {
  constructor(readonly text: string) {}
}

type HtmlValue = string | number | Html | readonly Html[];

/** A tagged template for fragments: interpolated strings are escaped, `Html` values are kept. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const text = (value: HtmlValue): string =>
    value instanceof Html ? value.text : Array.isArray(value) ? value.map(text).join('') : escapeHtml(String(value));
  return new Html(strings.reduce((out, part, i) => out + text(values[i - 1] ?? '') + part));
}

/** Text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  // One native pass per character rather than a call per character replaced: a description of
  // many `&` was slow that way (bench/README.md, "Scanners"). `&` first, so that no entity is escaped again.
  if (!/[&<>"']/.test(text)) return text;
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` are written as `\u003c`…,
 * so no value can close the block (`</script>`) or open a comment; U+2028/2029 for old parsers.
 */
export function jsonForScript(value: unknown): string {
  // As escapeHtml: a native pass per character, not a call per character replaced.
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

// ---------------------------------------------------------------------------------------------
// Content Security Policy: the page loads nothing but images from elsewhere, and runs only the
// template's own scripts (by hash), so even a value that escaped escaping could not run.

function contentSecurityPolicy(scriptHashes: string[]): string {
  const scripts = scriptHashes.length > 0 ? scriptHashes.map((h) => `'${h}'`).join(' ') : "'none'";
  return [
    "default-src 'none'",
    'img-src * data:',
    "style-src 'unsafe-inline'",
    `script-src ${scripts}`,
    // The 404 page looks for the addon's manifest on its own host.
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The CSP hashes of a template's inline scripts. Scripts must be whole in the template: no placeholders, no `src`. */
function scriptHashes(kind: PageKind, template: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes = '', body = ''] of template.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(attributes)) throw new Error(`${kind} template: scripts must be inline (the page is self-contained)`);
    const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1]?.toLowerCase();
    if (type !== undefined && type !== 'module' && type !== 'text/javascript') continue; // a data block: not run
    if (body.includes('{{')) throw new Error(`${kind} template: a script holds a placeholder; pass data through the JSON block`);
    // The browser hashes the parsed text, where every CR LF has become LF.
    hashes.push(`sha256-${createHash('sha256').update(body.replace(/\r\n?/g, '\n'), 'utf8').digest('base64')}`);
  }
  return hashes;
}

// ---------------------------------------------------------------------------------------------
// Fragments

function logoFragment(manifest: Manifest): Html {
  if (manifest.logo) return html`<img class="logo" src="${manifest.logo}" alt="" width="96" height="96" />`;
  // No logo: the name's first letter in a tile of the same size.
  // The first code point, not an array of all of them: a name may be megabytes long.
  const first = manifest.name.trim().codePointAt(0);
  const initial = first === undefined ? '?' : String.fromCodePoint(first);
  return html`<span class="logo logo-initial" aria-hidden="true">${initial.toUpperCase()}</span>`;
}

function badgesFragment(manifest: Manifest): Html {
  const hints = manifest.behaviorHints ?? {};
  const badges = [hints.adult ? 'Adult content' : undefined, hints.p2p ? 'Some streams use BitTorrent (P2P)' : undefined].filter(
    (b): b is string => b !== undefined,
  );
  if (badges.length === 0) return html``;
  return html`<ul class="badges">
    ${badges.map((b) => html`<li>${b}</li>`)}
  </ul>`;
}

function catalogsFragment(manifest: Manifest): Html {
  // Addon collections are lists on the Addons screen: shown after the catalogs, tagged as such.
  const collections = (manifest.addonCatalogs ?? []).map(
    (c) => html`<li><span class="catalog-name">${c.name}</span> <span class="tag">addons</span></li>`,
  );
  if (manifest.catalogs.length === 0 && collections.length === 0) {
    return html`<p class="muted">No catalogs: this addon answers for the items you open.</p>`;
  }
  const catalogs = manifest.catalogs.map((catalog) => {
    const genre = catalog.extra.find((e) => e.name === 'genre');
    const search = catalog.extra.find((e) => e.name === 'search');
    // A required genre filter is a catalog off the Board, its first option the All that opens it.
    const genres = (genre?.isRequired ? genre.options?.slice(1) : genre?.options) ?? [];
    const where = search?.isRequired ? 'search only' : genre?.isRequired ? 'in Discover' : search ? 'searchable' : undefined;
    const shown = genres.slice(0, GENRES_SHOWN).join(' · ');
    const more = genres.length > GENRES_SHOWN ? ` and ${genres.length - GENRES_SHOWN} more` : '';
    const genreLine = genres.length > 0 ? html`<span class="genres">${shown}${more}</span>` : html``;
    return html`<li>
      <span class="catalog-name">${catalog.name}</span>
      <span class="tag">${catalog.type}</span>${where ? html` <span class="tag">${where}</span>` : html``}${genreLine}
    </li>`;
  });
  return html`<ul class="catalogs">
    ${[...catalogs, ...collections]}
  </ul>`;
}

/**
 * The links to install one manifest, shared by the install and configure pages. The page's script
 * sets them again from its own URL; the copy button shows only when it can work.
 */
function installFragment(links: InstallLinks): Html {
  return html`<div class="actions">
      <a class="button primary" id="install" href="${links.installHref}">Install in Stremio</a>
      <a class="button" id="web-install" href="${links.webInstallHref}" rel="noopener">Install in Stremio Web</a>
    </div>
    <div class="copy">
      <input id="manifest-url" type="url" readonly value="${links.manifestUrl}" placeholder="…/manifest.json" aria-label="Manifest URL" />
      <button type="button" id="copy" hidden>Copy manifest URL</button>
    </div>
    <noscript
      ><p class="note">
        These links lead to the address the addon was built for. If it is published elsewhere, paste that address followed by manifest.json into
        Stremio's addon search.
      </p></noscript
    >
    <p class="note">Or add the <a id="manifest-link" href="${links.manifestHref}">manifest URL</a> in Stremio's addon search.</p>`;
}

/** "Stream quality: hd, Include silent films: yes". */
function settingsFragment(options: readonly ConfigOption[], values: ConfigValues): Html {
  const parts = options.map((option) => {
    const value = values[option.key];
    return html`<span class="setting">${option.title}: <b>${typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value ?? '')}</b></span>`;
  });
  return html`${parts.flatMap((part, i) => (i === 0 ? [part] : [html`, `, part]))}`;
}

/**
 * The form of the configure page: a labelled select per select option, a checkbox per checkbox,
 * set to `values`. It is never submitted: the page's script joins the chosen values' segment parts
 * into the configuration's folder and sets the install links.
 */
function formFragment(configure: ConfigurePage, values: ConfigValues): Html {
  const fields = configure.options.map((option, index) => {
    const id = `option-${index}`;
    const value = values[option.key];
    if (option.type === 'checkbox') {
      return html`<div class="field field-checkbox">
        <input type="checkbox" id="${id}" name="${option.key}" ${value === true ? html`checked` : html``} />
        <label for="${id}">${option.title}</label>
      </div>`;
    }
    const choices = option.options.map(
      (choice) => html`<option value="${choice}" ${String(choice) === String(value) ? html`selected` : html``}>${choice}</option>`,
    );
    return html`<div class="field">
      <label for="${id}">${option.title}</label>
      <select id="${id}" name="${option.key}">
        ${choices}
      </select>
    </div>`;
  });
  const again = configure.current
    ? html`<p class="note" id="reinstall-note">
        Installing other settings adds a second copy of this addon to Stremio, which tells addons apart by their address: uninstall the old one there.
      </p>`
    : html``;
  return html`<h2>Settings</h2>
    <form id="configure-form" class="options" autocomplete="off">${fields}</form>
    <noscript><p class="note">Choosing other settings needs JavaScript: without it, the links below are those of the settings shown.</p></noscript>
    ${again}
    <h2>Install these settings</h2>`;
}
