// The decisions of `addon-gen serve`: pure functions of the request, no I/O. What the request
// asks for, which file answers it, which part of that file, with which content type.
import path from 'node:path';
import { JSON_CONTENT_TYPE, type HeaderRule } from '../hosts/index.js';
import { resourcePath, stremioLink, webInstallLink } from '../shared/paths.js';
import { HOST_FILES } from '../hosts/index.js';
import type { SearchRequest } from '../plan/index.js';

/** An answer that is not a file of the tree. */
export type RouteError = { kind: 'error'; status: number; message: string };

export type Route =
  | { kind: 'preflight' }
  /** The first of `paths` (decoded, below the tree) that is a file; `ifMissing` when none is. */
  | { kind: 'file'; paths: string[]; ifMissing: RouteError }
  | RouteError;

export interface RouteOptions {
  /** The path of the base URL (`/` unless the addon was built for a sub-path). */
  basePath?: string;
  /**
   * Answer subtitles requests with extras from the id's file, as the rewrite rule of Cloudflare
   * Pages, Netlify and Vercel does. GitHub Pages and S3 have no rules: off, the default.
   */
  rewrites?: boolean;
  /** The tree is a configurable addon's: the rewrite applies in each configuration's folder too. */
  configured?: boolean;
}

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** Longer request URLs get 414; real ones are far shorter (the longest is a subtitles request). */
export const MAX_URL_BYTES = 8 * 1024;

/** Files at the root of the tree that hosts read as rules and do not serve. */
const HOST_RULE_FILES = new Set<string>([HOST_FILES.headers, HOST_FILES.redirects]);

const error = (status: number, message: string): RouteError => ({ kind: 'error', status, message });
const malformed = (why: string): RouteError => error(400, `malformed request path: ${why}`);

/**
 * Decides the answer to one request as a static host does: the path decoded and looked up as a
 * file, nothing computed. A request no file answers is a 404 here as it is on the hosts, so the
 * preview shows what production will. `rawUrl` is the request target as received (`req.url`).
 * Names only ever come from single decoded segments checked to be file names, so no route can
 * name a file outside the tree.
 */
export function route(method: string, rawUrl: string, options: RouteOptions = {}): Route {
  if (method === 'OPTIONS') return { kind: 'preflight' };
  if (method !== 'GET' && method !== 'HEAD') return error(405, `${method} is not allowed here; use ${ALLOWED_METHODS}`);
  if (Buffer.byteLength(rawUrl) > MAX_URL_BYTES) return error(414, `the request URL is over ${MAX_URL_BYTES} bytes`);
  const rawPath = treePath(rawUrl, options.basePath);
  if (rawPath === undefined) return malformed('it must start with "/"');

  const segments = rawPath.slice(1).split('/');
  return (options.rewrites && subtitlesRewrite(segments, options.configured)) || staticRoute(segments);
}

/**
 * The rule `/subtitles/:type/:id/* /subtitles/:type/:id.json 200`, and the same below `/:config`
 * in a configurable addon (hosts/index.ts, rewrites): the route to the id's file, or undefined
 * for another request. The splat takes the extras as they come, undecoded: a file name with a
 * `/` (`filename=dir%2Fa.mkv`) is rewritten as the hosts do, not refused.
 */
function subtitlesRewrite(segments: readonly string[], configured = false): Route | undefined {
  const parts = [...segments];
  const folder = configured && parts.length === 5 && parts[1] === 'subtitles' ? decodeName(parts.shift()!) : '';
  const [resource, rawType = '', rawId = '', extras, ...rest] = parts;
  if (resource !== 'subtitles' || extras === undefined || rest.length > 0) return undefined;
  const names = [folder, decodeName(rawType), decodeName(rawId)];
  // A name that is not a file name, or one hosts do not publish: as any other request.
  if (names.some((name) => name === undefined || name.startsWith('.'))) return undefined;
  const file = resourcePath('subtitles', names[1]!, names[2]!);
  const path = folder === '' ? file : `${folder}/${file}`;
  return { kind: 'file', paths: [path], ifMissing: error(404, `not found: /${path}`) };
}

/**
 * The path of a request below the tree, still percent-encoded (`/catalog/movie/top.json`);
 * undefined when it does not start with `/`.
 */
function treePath(rawUrl: string, basePath = '/'): string | undefined {
  // The absolute form (`GET http://host/path`), which a server must accept (RFC 9112, 3.2.2): only
  // its path counts. Cut off by hand: the URL class would resolve `..` before route() sees it.
  const authority = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(rawUrl)?.[0];
  const target = authority === undefined ? rawUrl : `/${rawUrl.slice(authority.length).replace(/^\//, '')}`;
  // The query is not part of the addon protocol; the client carries the install URL's along.
  const rawPath = target.split('?', 1)[0]!.split('#', 1)[0]!;
  if (!rawPath.startsWith('/')) return undefined;
  // An addon built for `https://host/repo/` is also answered under `/repo/`, as a proxy may forward it.
  return basePath !== '/' && rawPath.startsWith(basePath) ? rawPath.slice(basePath.length - 1) : rawPath;
}

/**
 * The catalog search a request asks for (`catalog/{type}/{id}/skip=100&search=…json`, in a
 * configuration's folder when `configured`), or undefined when it asks for something else. Read
 * from the encoded path, where a `&` or `=` in the query is still `%26` or `%3D`.
 */
export function searchRequest(rawUrl: string, basePath = '/', configured = false): SearchRequest | undefined {
  const raw = treePath(rawUrl, basePath)?.slice(1).split('/');
  const folder = configured && raw?.length === 5 ? decodeName(raw.shift()!) : '';
  if (!raw || raw.length !== 4 || folder === undefined) return undefined;
  const [resource, rawType = '', rawId = '', rawExtras = ''] = raw;
  const [type, id] = [decodeName(rawType), decodeName(rawId)];
  if (resource !== 'catalog' || type === undefined || id === undefined || !rawExtras.endsWith('.json')) return undefined;
  const extras = new Map<string, string>();
  for (const pair of rawExtras.slice(0, -'.json'.length).split('&')) {
    const [name, value, ...rest] = pair.split('=').map(decoded);
    if (name === undefined || value === undefined || rest.length > 0 || extras.has(name)) return undefined;
    extras.set(name, value);
  }
  const query = extras.get('search');
  const skip = extras.get('skip') ?? '0';
  // Search with `skip` and nothing else: the requests the client makes of a catalog's search.
  if (query === undefined || !/^\d{1,9}$/.test(skip) || extras.size !== (extras.has('skip') ? 2 : 1)) return undefined;
  return { folder, type, id, query, skip: Number(skip) };
}

/** A percent-decoded string, or undefined for bad percent-encoding. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A path's file in the tree (`/`, `/configure` and other folders give their index.html). */
function staticRoute(raw: string[]): Route {
  const names: string[] = [];
  for (const [index, segment] of raw.entries()) {
    if (segment === '' && index === raw.length - 1) break; // a trailing `/`: the folder's index.html
    const name = decodeName(segment);
    if (name === undefined) return malformed('bad percent-encoding, or a segment that cannot be a file name');
    names.push(name);
  }
  const file = names.join('/');
  // The bookkeeping file (.addon-gen.json), hosts' marker files and the rule files they read but do
  // not publish (Cloudflare Pages, Netlify) are not part of the addon.
  if (names.some((n) => n.startsWith('.')) || (names.length === 1 && HOST_RULE_FILES.has(names[0]!))) {
    return error(404, `not found: /${file}`);
  }
  const folder = raw[raw.length - 1] === '';
  const paths = folder ? [file === '' ? 'index.html' : `${file}/index.html`] : [file, `${file}/index.html`];
  return { kind: 'file', paths, ifMissing: error(404, `not found: /${file}${folder && file !== '' ? '/' : ''}`) };
}

/** One percent-decoded path segment that can be a file name, or undefined. */
function decodeName(segment: string): string | undefined {
  const name = decoded(segment);
  return name === undefined ? undefined : decodedName(name);
}

/**
 * The decoded name itself if it can be a file name (the rule validate applies to ids, types and
 * genres): not empty, `.` or `..`, no `/`, `\` or control characters. Anything else is a
 * traversal attempt or a name no build writes.
 */
function decodedName(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..' || /[/\\\u0000-\u001f\u007f]/.test(name)) return undefined;
  return name;
}

/**
 * The part of a file of `size` bytes a `Range` header asks for: one range, `unsatisfiable` (416),
 * or undefined for the whole file. Several ranges, other units and invalid headers get the whole
 * file, as RFC 9110 (14.2) allows; players ask for one range to seek in a local video.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1]!, match[2]!];
  // `bytes=-500`: the last 500 bytes (all of a shorter file).
  const start = first === '' ? Math.max(0, size - Number(last)) : Number(first);
  const end = first === '' || last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (first !== '' && last !== '' && Number(last) < start) return undefined;
  return start >= size || end < start ? 'unsatisfiable' : { start, end };
}

/**
 * Content types by extension: the protocol's JSON, the pages, and what local files usually are
 * (images, subtitles, video). Other files go out as bytes, as hosts send types they do not know.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.json': JSON_CONTENT_TYPE,
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.srt': 'application/x-subrip',
  '.vtt': 'text/vtt; charset=utf-8',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.mp3': 'audio/mpeg',
};

export function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The header rules of a `_headers` file (Cloudflare Pages, Netlify), the inverse of
 * renderHeadersFile: a path line, then indented `Key: value` lines; `#` starts a comment.
 */
export function parseHeadersFile(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      rules.push({ source: line.trim(), headers: [] });
      continue;
    }
    const colon = line.indexOf(':');
    const rule = rules[rules.length - 1];
    if (colon === -1 || !rule) continue;
    rule.headers.push({ key: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return rules;
}

/** The ways to install an addon from its manifest URL. */
export function installLinks(manifestUrl: string): { manifest: string; stremio: string; web: string } {
  return {
    manifest: manifestUrl,
    stremio: stremioLink(manifestUrl),
    web: webInstallLink(manifestUrl),
  };
}
