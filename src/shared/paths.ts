// Where each resource lives: the one place where ids become file names and URLs.
// Files carry the decoded segments because static hosts decode the request path before lookup.

export type Resource = 'catalog' | 'meta' | 'stream' | 'subtitles' | 'addon_catalog';
/** One extra as the client sends it: `['genre', 'Action']`, in the client's order. */
export type Extra = readonly [name: string, value: string];

export const MANIFEST_FILE = 'manifest.json';
/** Local files named in content are copied below this folder of the output. */
export const ASSETS_DIR = 'assets';

/** The output file of a request: `catalog/movie/top/skip=100&genre=Action.json` (decoded). */
export function resourcePath(resource: Resource, type: string, id: string, extras: readonly Extra[] = []): string {
  // Joined rather than concatenated: V8 keeps a concatenation as a tree of its pieces, larger
  // than the one flat string a join makes, and a plan keeps a quarter of a million paths.
  if (extras.length === 0) return [resource, '/', type, '/', id, '.json'].join('');
  return [resource, '/', type, '/', id, '/', extrasName(extras)].join('');
}

/** The file name of a request's extras: `skip=100&genre=Action.json` (decoded). */
export function extrasName(extras: readonly Extra[]): string {
  return `${extras.map(([name, value]) => `${name}=${value}`).join('&')}.json`;
}

/**
 * The extras of the player's subtitles request for a video it knows only from its stream's
 * behaviorHints, in the client core's order: the one it sets last (filename) first, each left
 * out when unknown.
 */
export function subtitlesRequestExtras(hints: { filename?: string; videoSize?: number; videoHash?: string }): Extra[] {
  const extras: Extra[] = [];
  if (hints.filename !== undefined) extras.push(['filename', hints.filename]);
  if (hints.videoSize !== undefined) extras.push(['videoSize', String(hints.videoSize)]);
  if (hints.videoHash !== undefined) extras.push(['videoHash', hints.videoHash]);
  return extras;
}

/**
 * The path the client requests for the same resource: each segment, extra name and extra value
 * through encodeURIComponent, as the client core does (`tt1:1:2` -> `tt1%3A1%3A2`).
 */
export function resourceUrlPath(resource: Resource, type: string, id: string, extras: readonly Extra[] = []): string {
  const base = [resource, type, id].map(encodeURIComponent).join('/');
  if (extras.length === 0) return `${base}.json`;
  const query = extras.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return `${base}/${query}.json`;
}

/** The public URL of an output file: each path segment encoded, under the base URL. */
export function publicUrl(baseUrl: string, filePath: string): string {
  return baseUrl + filePath.split('/').map(encodeURIComponent).join('/');
}

/** Base URLs always end in `/` so that file paths can be appended (the client cuts `manifest.json` off). */
export function normalizeBaseUrl(baseUrl: string): string {
  const href = new URL(baseUrl).href;
  return href.endsWith('/') ? href : `${href}/`;
}

export function manifestUrl(baseUrl: string): string {
  return baseUrl + MANIFEST_FILE;
}

/**
 * The client's link to a catalog filtered by genre: its "Genres" links must point at this addon,
 * or the client points them at Cinemeta.
 */
export function discoverGenreLink(baseUrl: string, type: string, catalogId: string, genre: string): string {
  const addon = encodeURIComponent(manifestUrl(baseUrl));
  return `stremio:///discover/${addon}/${encodeURIComponent(type)}/${encodeURIComponent(catalogId)}?genre=${encodeURIComponent(genre)}`;
}

/** The install link: the manifest URL with its scheme replaced (`https://x/y/manifest.json` -> `stremio://x/y/manifest.json`). */
export function stremioLink(manifestUrl: string): string {
  return manifestUrl.replace(/^https?:\/\//, 'stremio://');
}

/** Installs the addon in Stremio Web. */
export function webInstallLink(manifestUrl: string): string {
  return `https://web.stremio.com/#/addons?addon=${encodeURIComponent(manifestUrl)}`;
}

/**
 * A path as file systems that ignore case and Unicode normalization see it. Most paths are
 * ASCII, which has one normalization: only the others pay for normalizing.
 */
export function foldPath(path: string): string {
  const lower = path.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize('NFC') : lower;
}

// \p{ASCII} rather than a range from \u0000: a control character in a pattern reads as a mistake.
const NON_ASCII = /[^\p{ASCII}]/u;

/** The machine itself, by any of its names. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The one host from which the Stremio apps install an addon over plain HTTP: 127.0.0.1, as the
 * official SDK's docs and serveHTTP say, not `localhost` or `[::1]`.
 */
export function installsOverPlainHttp(hostname: string): boolean {
  return hostname === '127.0.0.1';
}

/** The longest name of a file addon-gen writes (an id, a type, …), in UTF-8 bytes. */
export const MAX_NAME_BYTES = 200;

/** Device names Windows reserves, with any extension: `CON`, `nul.json`, `COM1`. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\.|$)/i;

/**
 * Why a value cannot be a path segment on every host, or undefined when it can. `whole` is for
 * values that are a whole file or folder name (ids, types): Windows and the hosts' file systems
 * also refuse device names and strip trailing dots and spaces there. A genre only ends a name
 * (`genre=Drama.json`), so those rules do not apply to it.
 */
export function fileNameProblem(value: string, whole = true): string | undefined {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..') return `is "${value}"`;
  if (/[/\\]/.test(value)) return 'contains "/" or "\\"';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'contains a control character';
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (whole && WINDOWS_DEVICE.test(value)) return 'is a device name Windows reserves';
  if (whole && /[. ]$/.test(value)) return 'ends in a dot or a space, which Windows drops';
  return undefined;
}
