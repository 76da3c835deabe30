// Header and rewrite rules for static hosts, as ordered data rendered into each host's format
// (`_headers`/`_redirects` for Cloudflare Pages and Netlify, vercel.json, S3 scripts). `serve`
// answers with the same headers, so a local preview behaves like the published addon.
import { problem, type Diagnostic } from '../diagnostics/index.js';
import type { CacheHints, ResourceName } from '../validate/schema.js';
import type { Content } from '../shared/content.js';

export const HOSTS = ['github-pages', 'cloudflare', 'netlify', 'vercel', 's3'] as const;
export type Host = (typeof HOSTS)[number];

/** The files hosts read as rules (or markers) from the published folder: written by plan, not served by serve, not uploaded to S3. */
export const HOST_FILES = { headers: '_headers', redirects: '_redirects', vercel: 'vercel.json', nojekyll: '.nojekyll' } as const;

export function isHost(name: string): name is Host {
  return HOSTS.some((host) => host === name);
}

/** One header rule: every rule whose pattern matches a path applies; for the same header, the later wins. */
export interface HeaderRule {
  /** A path pattern: `/manifest.json`, or a prefix ending in `*` (`/catalog/*`). */
  source: string;
  headers: { key: string; value: string }[];
}

export interface Rewrite {
  /** Netlify/Cloudflare style: `:name` matches one segment, a trailing `*` the rest. */
  source: string;
  destination: string;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Where each resource's files live, for header patterns. */
const RESOURCE_PATTERNS: [ResourceName, string][] = [
  ['manifest', '/manifest.json'],
  ['catalog', '/catalog/*'],
  ['meta', '/meta/*'],
  ['stream', '/stream/*'],
  ['subtitles', '/subtitles/*'],
  ['addon_catalog', '/addon_catalog/*'],
];

/**
 * The header rules of an addon: CORS on everything (the web client fetches across origins), then
 * per resource its content type and `Cache-Control` from the `cache` settings. No two rules that
 * match one path set the same header: Cloudflare and Netlify would join the values.
 */
export function headerRules(content: Content): HeaderRule[] {
  const rules: HeaderRule[] = [
    {
      source: '/*',
      headers: [
        { key: 'Access-Control-Allow-Origin', value: '*' },
        { key: 'Access-Control-Allow-Headers', value: '*' },
      ],
    },
  ];
  for (const [resource, source] of RESOURCE_PATTERNS) {
    const headers = [{ key: 'Content-Type', value: JSON_CONTENT_TYPE }];
    const cacheControl = cacheControlOf(cacheHints(content, resource));
    if (cacheControl) headers.push({ key: 'Cache-Control', value: cacheControl });
    rules.push({ source, headers });
    // A configurable addon has the same tree once more in the folder of each configuration.
    if (content.config.length > 0) rules.push({ source: CONFIGURATION + source, headers });
  }
  const assetCache = cacheControlOf(cacheHints(content, 'asset'));
  if (assetCache) rules.push({ source: '/assets/*', headers: [{ key: 'Cache-Control', value: assetCache }] });
  return rules;
}

/** The folder of a configuration's tree in a rule: one path segment (`/quality=hd,silent=true`). */
export const CONFIGURATION = '/:config';

/**
 * The subtitles request carries `filename`/`videoSize`/`videoHash` extras that no static file can
 * match; hosts with rewrites map it onto the item's subtitles file, in each configuration's tree too.
 */
export function rewrites(content: Pick<Content, 'config'>): Rewrite[] {
  const rule = { source: '/subtitles/:type/:id/*', destination: '/subtitles/:type/:id.json' };
  if (content.config.length === 0) return [rule];
  return [rule, { source: CONFIGURATION + rule.source, destination: CONFIGURATION + rule.destination }];
}

/** Folders the addon's JSON lives in: a 404 below them should be JSON too. */
export const RESOURCE_FOLDERS = RESOURCE_PATTERNS.filter(([, source]) => source.endsWith('/*')).map(([, source]) => source.slice(1, -2));

/**
 * Cloudflare Pages answers a missing path with the nearest `404.html` up the tree, with the
 * headers `_headers` gives the request path: one per resource folder holding the addon
 * specification's error object makes its 404s JSON in body and type. Only in the folders of
 * the resources the manifest declares: the client asks no other.
 */
export function notFoundPages(resources: readonly string[]): { path: string; body: string }[] {
  return RESOURCE_FOLDERS.filter((folder) => resources.includes(folder)).map((folder) => ({
    path: `${folder}/404.html`,
    body: `${JSON.stringify({ error: 'not found' })}\n`,
  }));
}

/** Whether a host applies the rewrites: GitHub Pages and S3 serve files and nothing else. */
export function hasRewrites(host: Host): boolean {
  return host === 'cloudflare' || host === 'netlify' || host === 'vercel';
}

/** Cache hints for a resource: the `cache` settings, overridden per resource (assets: the defaults). */
export function cacheHints(content: Pick<Content, 'addon'>, resource: ResourceName | 'asset'): CacheHints {
  const cache = content.addon.cache;
  const settings = { ...cache, ...(resource === 'asset' ? undefined : cache?.[resource]) };
  const hints: CacheHints = {};
  if (settings.maxAge !== undefined) hints.cacheMaxAge = settings.maxAge;
  if (settings.staleRevalidate !== undefined) hints.staleRevalidate = settings.staleRevalidate;
  if (settings.staleError !== undefined) hints.staleError = settings.staleError;
  return hints;
}

/** `max-age=N, stale-while-revalidate=N, stale-if-error=N, public`, with only the parts that are set. */
export function cacheControlOf(hints: CacheHints): string | undefined {
  const parts: string[] = [];
  if (hints.cacheMaxAge !== undefined) parts.push(`max-age=${hints.cacheMaxAge}`);
  if (hints.staleRevalidate !== undefined) parts.push(`stale-while-revalidate=${hints.staleRevalidate}`);
  if (hints.staleError !== undefined) parts.push(`stale-if-error=${hints.staleError}`);
  return parts.length > 0 ? [...parts, 'public'].join(', ') : undefined;
}

/** The headers the rules give one (decoded) URL path, as a host applies them. */
export function headersFor(rules: readonly HeaderRule[], urlPath: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!matches(rule.source, urlPath)) continue;
    for (const { key, value } of rule.headers) headers[key] = value;
  }
  return headers;
}

/** As Cloudflare and Netlify match: `:name` is one whole segment, a trailing `*` anything after. */
function matches(pattern: string, urlPath: string): boolean {
  if (pattern.startsWith('/:')) {
    const rest = pattern.indexOf('/', 1);
    const end = urlPath.indexOf('/', 1);
    if (rest === -1 || end <= 1) return false;
    return matches(pattern.slice(rest), urlPath.slice(end));
  }
  return pattern.endsWith('*') ? urlPath.startsWith(pattern.slice(0, -1)) : urlPath === pattern;
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Cloudflare Pages and Netlify `_headers`: a path line, then indented `Key: value` lines. */
export function renderHeadersFile(rules: readonly HeaderRule[]): string {
  const blocks = rules.map((rule) => [rule.source, ...rule.headers.map((h) => `  ${h.key}: ${h.value}`)].join('\n'));
  return `# Written by addon-gen: CORS for the web client, cache and content type per resource.\n${blocks.join('\n')}\n`;
}

/** Cloudflare Pages and Netlify `_redirects`: status 200 is a rewrite (the URL stays). */
export function renderRedirectsFile(rewrites: readonly Rewrite[]): string {
  const lines = rewrites.map((r) => `${r.source} ${r.destination} 200`);
  return `# Written by addon-gen: subtitles requests with extras get the item's subtitles file.\n${lines.join('\n')}\n`;
}

/** vercel.json: the same rules in Vercel's path-to-regexp patterns. */
export function renderVercelJson(rules: readonly HeaderRule[], rewrites: readonly Rewrite[]): string {
  const pattern = (source: string) => source.replace(/\*$/, '(.*)');
  return `${JSON.stringify(
    {
      headers: rules.map((r) => ({ source: pattern(r.source), headers: r.headers })),
      rewrites: rewrites.map((r) => ({ source: r.source.replace(/\*$/, ':extra*'), destination: r.destination })),
      cleanUrls: false,
      trailingSlash: false,
    },
    null,
    2,
  )}\n`;
}

/** The bucket CORS configuration for `aws s3api put-bucket-cors --cors-configuration file://…`. */
export function renderS3Cors(): string {
  return `${JSON.stringify(
    {
      CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET', 'HEAD'], AllowedHeaders: ['*'], MaxAgeSeconds: 86400 }],
    },
    null,
    2,
  )}\n`;
}

/**
 * A shell script that uploads the output with `aws s3 sync`, one pass per resource so that each
 * object gets its Content-Type and Cache-Control (S3 has no header rules; they are set per object).
 * `outFromScript` is the output folder relative to the script's own folder.
 */
export function renderS3Upload(rules: readonly HeaderRule[], outFromScript: string): string {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const lines = [
    '#!/bin/sh',
    '# Written by addon-gen. Uploads the addon to S3 with the headers each resource needs.',
    '#   BUCKET=my-bucket [PREFIX=path/] [ENDPOINT_URL=https://…] sh upload.sh',
    '# ENDPOINT_URL points the AWS CLI at another S3-compatible service (Cloudflare R2, MinIO, …).',
    '# First, once: aws s3api put-bucket-cors --bucket "$BUCKET" --cors-configuration "file://$(dirname "$0")/cors.json"',
    '# S3 website endpoints are HTTP only; the client needs HTTPS, so put CloudFront (or another CDN) in front.',
    'set -eu',
    ': "${BUCKET:?set BUCKET to the bucket name}"',
    'PREFIX="${PREFIX:-}"',
    // Quoted whole: an output folder named with `$(…)`, a quote or a backquote is only a name.
    `OUT="$(dirname "$0")"/${quote(outFromScript)}`,
    'DEST="s3://$BUCKET/$PREFIX"',
    'set -- ${ENDPOINT_URL:+--endpoint-url "$ENDPOINT_URL"}',
  ];
  const jsonPatterns: string[] = [];
  // A configuration's folder: S3's filters match `*` across `/`, and its name always has a `=`.
  const configured = rules.some((rule) => rule.source.startsWith(`${CONFIGURATION}/`));
  for (const [, source] of RESOURCE_PATTERNS) {
    const headers = headersFor(rules, source.replace('*', 'x'));
    const patterns = [source.slice(1), ...(configured ? [`*=*${source}`] : [])];
    jsonPatterns.push(...patterns);
    const cache = headers['Cache-Control'] ? ` --cache-control ${quote(headers['Cache-Control'])}` : '';
    const filters = patterns
      .map((include) => ` --include ${quote(include)}${include.endsWith('/*') ? ` --exclude ${quote(include.replace(/\*$/, '404.html'))}` : ''}`)
      .join('');
    lines.push(`aws "$@" s3 sync "$OUT" "$DEST" --exclude '*'${filters} --content-type ${quote(JSON_CONTENT_TYPE)}${cache} --delete`);
  }
  const assets = headersFor(rules, '/assets/x')['Cache-Control'];
  const rest = jsonPatterns.map((p) => ` --exclude ${quote(p)}`).join('');
  lines.push(
    `aws "$@" s3 sync "$OUT" "$DEST"${rest} --exclude '.addon-gen.json'${Object.values(HOST_FILES)
      .map((file) => ` --exclude ${quote(file)}`)
      .join('')}${assets ? ` --cache-control ${quote(assets)}` : ''} --delete`,
  );
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Host report

export interface HostLimitCheck {
  what: string;
  value: number;
  limit: number;
}

export interface HostReport {
  host: Host;
  files: number;
  bytes: number;
  /** Limits of the host's free plan that this output is measured against. */
  limits: HostLimitCheck[];
  /** How far addon-gen's own tests check this host, on which software (README "Hosts"). */
  tested: string;
  /** A fact of this host that applies to this output, for the report (not a warning). */
  note?: string;
}

/** The software test/hosts-client.test.ts serves each host's output with, or why there is none. */
export const TESTED_ON: Record<Host, string> = {
  'github-pages': "tested on nginx set up like Pages; the apps' subtitles requests with a hash and size get 404 there, the copy in each stream shows",
  cloudflare: "tested on wrangler pages dev, Cloudflare's Pages runtime",
  netlify: 'not tested: production Netlify is out of reach and netlify dev decodes paths differently',
  vercel: 'not tested: production Vercel is out of reach and vercel dev decodes paths differently',
  s3: 'tested on s3rver through the AWS CLI; serve it over HTTPS (CloudFront)',
};

const MiB = 1024 * 1024;
const LIMITS: Partial<Record<Host, { what: string; limit: number; measure: (files: number, bytes: number, largest: number) => number }[]>> = {
  cloudflare: [
    { what: 'files (free plan)', limit: 20_000, measure: (files) => files },
    { what: 'bytes in the largest file', limit: 25 * MiB, measure: (_f, _b, largest) => largest },
  ],
  'github-pages': [{ what: 'bytes in the site', limit: 1024 * MiB, measure: (_f, bytes) => bytes }],
};

/**
 * Characters Windows refuses in file and folder names (`:` comes from series video ids,
 * `tt1:1:2`), and a name that ends in a dot or a space: in a whole path, without splitting it.
 */
const WINDOWS_UNSAFE = /[<>:"|?*]|[. ](?:\/|$)/;

/** The paths GitHub Pages needs the Actions workflow for (WINDOWS_UNSAFE): how many, and the first two in sorted order. */
export interface UnsafeNames {
  count: number;
  examples: string[];
}

/** The unsafe names among `files`. */
export function unsafeNames(files: Iterable<{ path: string }>): UnsafeNames {
  const names: UnsafeNames = { count: 0, examples: [] };
  for (const { path } of files) if (WINDOWS_UNSAFE.test(path)) addExample(names, path);
  return names;
}

/**
 * The unsafe names once `created` paths are there and `removed` ones gone (an edit's, build/edit.ts);
 * undefined when an example went, and which is next is not known.
 */
export function unsafeNamesAfter(names: UnsafeNames, created: Iterable<string>, removed: Iterable<string>): UnsafeNames | undefined {
  const after: UnsafeNames = { count: names.count, examples: names.examples.slice() };
  for (const path of removed) {
    if (!WINDOWS_UNSAFE.test(path)) continue;
    if (after.examples.includes(path)) return undefined;
    after.count--;
  }
  for (const path of created) if (WINDOWS_UNSAFE.test(path)) addExample(after, path);
  return after;
}

function addExample(names: UnsafeNames, path: string): void {
  names.count++;
  const { examples } = names;
  if (examples.length === 2 && path >= examples[1]!) return;
  examples.push(path);
  examples.sort();
  examples.length = Math.min(examples.length, 2);
}

/** Measures the written output against each chosen host, warns where a host would refuse it, and notes what applies to it. */
export function hostReport(
  hosts: readonly Host[] = HOSTS,
  names: UnsafeNames,
  written: { files: number; bytes: number; largest: { path: string; bytes: number } },
  trees?: { trees: number; configurations: number },
): { hosts: HostReport[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const reports = hosts.map((host): HostReport => {
    const limits = (LIMITS[host] ?? []).map(({ what, limit, measure }) => ({
      what,
      limit,
      value: measure(written.files, written.bytes, written.largest.bytes),
    }));
    for (const check of limits.filter((c) => c.value > c.limit)) {
      const largest = check.what.includes('largest') ? written.largest.path : undefined;
      diagnostics.push(problem('host-limit', { host, value: check.value, what: check.what, limit: check.limit, largest }, {}));
    }
    return { host, files: written.files, bytes: written.bytes, limits, tested: TESTED_ON[host] };
  });

  // Where files are counted against a limit, what multiplies them: each configuration is a tree.
  if (trees) {
    const each = Math.round(written.files / trees.trees).toLocaleString('en');
    const root = trees.trees > trees.configurations ? 'the root and ' : '';
    const what = `${root}${trees.configurations} configuration${trees.configurations === 1 ? '' : 's'}`;
    for (const report of reports.filter((r) => r.limits.length > 0)) {
      report.note = `${trees.trees} trees (${what}) of about ${each} files each: every option value multiplies them`;
    }
  }

  // Not a warning: the client needs these names, and the recommended way to publish (the Actions
  // workflow) takes them. A fact of the host, shown in its line of the report. Counted, not
  // listed: in a large series addon nearly every path has a `:`.
  const pages = reports.find((report) => report.host === 'github-pages');
  if (pages) {
    const { count: unsafe, examples } = names;
    if (unsafe > 0) {
      pages.note = `${pages.note ? `${pages.note}; ` : ''}${unsafe} file name${unsafe === 1 ? ' holds' : 's hold'} characters such as ":" (${examples.join(', ')}${unsafe > 2 ? ', …' : ''}) that Jekyll and Windows checkouts refuse: publish with the Actions workflow (as init sets up), not from a branch, and do not commit the output folder`;
    }
  }
  return { hosts: reports, diagnostics };
}
