// `addon-gen serve`: a local host for the addon that answers as the static hosts do, no better.
// `route` decides every answer from the request alone; `startServer` does the I/O.
import { constants, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { mkdtemp, open, readdir, readlink, realpath, rm, stat, type FileHandle } from 'node:fs/promises';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { build, type BuildResult } from '../build/index.js';
import { printable, UsageError } from '../diagnostics/index.js';
import { hasRewrites, headerRules, headersFor, JSON_CONTENT_TYPE, type HeaderRule, type Host } from '../hosts/index.js';
import {
  MANIFEST_FILE,
  manifestUrl as manifestUrlOf,
  normalizeBaseUrl,
  resourcePath,
  stremioLink,
  webInstallLink,
} from '../shared/paths.js';
import { baseUrl as baseUrlSchema, Manifest } from '../validate/schema.js';

// ---------------------------------------------------------------------------------------------
// Decisions: pure functions of the request

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
}

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** Longer request URLs get 414; real ones are far shorter (the longest is a subtitles request). */
export const MAX_URL_BYTES = 8 * 1024;

/** Files at the root of the tree that hosts read as rules and do not serve. */
const HOST_RULE_FILES = new Set(['_headers', '_redirects']);

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
  // The absolute form (`GET http://host/path`), which a server must accept (RFC 9112, 3.2.2): only
  // its path counts. Cut off by hand: the URL class would resolve `..` before route() sees it.
  const authority = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(rawUrl)?.[0];
  const target = authority === undefined ? rawUrl : `/${rawUrl.slice(authority.length).replace(/^\//, '')}`;
  // The query is not part of the addon protocol; the client carries the install URL's along.
  let rawPath = target.split('?', 1)[0]!.split('#', 1)[0]!;
  if (!rawPath.startsWith('/')) return malformed('it must start with "/"');
  // An addon built for `https://host/repo/` is also answered under `/repo/`, as a proxy may forward it.
  const basePath = options.basePath ?? '/';
  if (basePath !== '/' && rawPath.startsWith(basePath)) rawPath = rawPath.slice(basePath.length - 1);

  const found = staticRoute(rawPath.slice(1).split('/'));
  if (found.kind !== 'file' || !options.rewrites) return found;
  // The rule `/subtitles/:type/:id/* /subtitles/:type/:id.json 200` (hosts.ts REWRITES).
  const [resource, type, id, extras, ...rest] = found.paths[0]!.split('/');
  if (resource !== 'subtitles' || extras === undefined || rest.length > 0) return found;
  return { ...found, paths: [resourcePath('subtitles', type!, id!)] };
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
  try {
    return decodedName(decodeURIComponent(segment));
  } catch {
    return undefined;
  }
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

function contentType(file: string): string {
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

// ---------------------------------------------------------------------------------------------
// The server

export interface ServeOptions {
  /** The content folder to build (with the base URL) into a private folder and serve. */
  contentDir?: string;
  /** Serve this already built tree as it is instead (no build). */
  dir?: string;
  /** Default 7000; 0 picks a free port. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** The URL the addon is built for; default the URL the server listens on. */
  baseUrl?: string;
  /**
   * The host to answer as: with cloudflare, netlify or vercel a subtitles request with extras gets
   * the id's file, as their rewrite rule does; github-pages (default) and s3 serve files only.
   */
  like?: Host;
  /** Rebuild when content files change (not with `dir`). */
  watch?: boolean;
  /** Credentials in `proxyHeaders` are a warning instead of an error. */
  allowCredentialsInOutput?: boolean;
  /** Content files larger than this many bytes are refused unread; default 16 MiB. */
  maxFileSize?: number;
  /** Quiet time after the last change before a rebuild, in ms; default 100. */
  debounceMs?: number;
  /** Every build's result: the first, and each rebuild under `watch` (failed ones keep the last good tree). */
  onBuild?: (result: BuildResult) => void;
  /** A rebuild that threw (an I/O error, or the content folder gone), not a content problem. */
  onError?: (error: Error) => void;
}

export interface AddonServer {
  /** Where the server listens: `http://127.0.0.1:7000/`. */
  url: string;
  /** The URL the addon was built for (`url` unless `baseUrl` was given), ending in `/`. */
  baseUrl: string;
  manifestUrl: string;
  /** The manifest served now; undefined while no build has succeeded (`watch` after a failed start). */
  readonly manifest: Manifest | undefined;
  /** The folder served now; a rebuild under `watch` swaps it. */
  readonly root: string | undefined;
  /** Where the Cache-Control headers come from: the content, the tree's `_headers`, or nowhere. */
  readonly headerSource: 'content' | '_headers' | 'none';
  /** Stops listening, stops watching, removes the private folder. */
  close(): Promise<void>;
}

/** The first build failed (without `watch` there is nothing to serve); the diagnostics went to onBuild. */
export class ContentError extends Error {
  override name = 'ContentError';
  constructor(readonly result: BuildResult) {
    super('the content has errors');
  }
}

/** One served tree: swapped as a whole, so a request never mixes two builds. */
interface Tree {
  root: string;
  manifest: Manifest;
  rules: HeaderRule[];
  /** Whether the host it answers as rewrites subtitles requests with extras (see RouteOptions). */
  rewrites: boolean;
}

/** Builds (unless `dir`), listens, and serves until close(). Throws UsageError for bad options or a busy port. */
export async function startServer(options: ServeOptions): Promise<AddonServer> {
  if ((options.dir === undefined) === (options.contentDir === undefined)) {
    throw new UsageError('serve takes either a content folder or --dir with a built tree, not both');
  }
  if (options.dir !== undefined && options.watch) {
    throw new UsageError('--watch rebuilds a content folder; --dir serves a built tree as it is');
  }
  const state: ServedState = { headerSource: 'none' };
  let basePath = '/';

  // Answers under way on each connection: a refusal on it goes out after them, so that a client
  // that pipelines requests reads every answer, in order.
  const underway = new WeakMap<Duplex, Set<ServerResponse>>();
  // Node answers some requests itself, bare: without a body or CORS headers. requireHostHeader off,
  // and the listeners below, hand those to us, so that every answer is JSON with CORS.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    let answers = underway.get(req.socket);
    if (!answers) underway.set(req.socket, (answers = new Set()));
    answers.add(res);
    res.once('close', () => answers.delete(res));
    handle(req, res, state.tree, basePath).catch((cause: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: `could not answer: ${cause instanceof Error ? cause.message : String(cause)}` });
    });
  });
  // `Expect: 100-continue` Node handles; any other expectation it would refuse with an empty 417.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    sendJson(res, 417, { error: 'only the expectation "100-continue" is understood' });
  });
  // Without a listener Node drops a CONNECT without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    refuse(socket, underway.get(socket), { status: 405, message: `CONNECT is not allowed here; use ${ALLOWED_METHODS}`, headers: { Allow: ALLOWED_METHODS } });
  });
  // The parser reports its error again for each later chunk on the connection; it is answered once.
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (cause: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    const refusal = refusalOf(cause);
    if (refusal && socket.writable) refuse(socket, underway.get(socket), refusal);
    else socket.destroy();
  });
  const host = options.host ?? '127.0.0.1';
  await listen(server, options.port ?? 7000, host);
  const url = listenUrl(server.address() as AddressInfo);

  let builds: Builds | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await builds?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would otherwise hold close() open.
        server.closeAllConnections();
      });
    })());

  try {
    const baseUrl = checkBaseUrl(options.baseUrl) ?? url;
    const rewrites = hasRewrites(options.like ?? 'github-pages');
    basePath = new URL(baseUrl).pathname;
    if (options.dir !== undefined) {
      const root = await realpath(options.dir).catch(() => {
        throw new UsageError(`--dir ${options.dir} does not exist`);
      });
      const headersFile = await readInside(root, '_headers');
      state.headerSource = headersFile === undefined ? 'none' : '_headers';
      state.tree = { root, manifest: await readManifest(root, options.dir), rules: parseHeadersFile(headersFile ?? ''), rewrites };
    } else {
      builds = await startBuilds(options.contentDir!, baseUrl, options, state);
    }
    return {
      url,
      baseUrl,
      manifestUrl: manifestUrlOf(baseUrl),
      get manifest() {
        return state.tree?.manifest;
      },
      get root() {
        return state.tree?.root;
      },
      get headerSource() {
        return state.headerSource;
      },
      close,
    };
  } catch (cause) {
    await close();
    throw cause;
  }
}

/** What the server answers from; the builds replace `tree` as a whole. */
interface ServedState {
  tree?: Tree;
  headerSource: AddonServer['headerSource'];
}

interface Builds {
  /** Stops watching, waits for a running build, removes the private folder. */
  close(): Promise<void>;
}

/**
 * Builds the content into a private folder and serves it; with `watch`, again after each change.
 * Two slots: each build writes into the one not being served, and only a good build is swapped
 * in, so a request never sees a half-written or failed build.
 */
async function startBuilds(contentDir: string, baseUrl: string, options: ServeOptions, state: ServedState): Promise<Builds> {
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), 'addon-gen-serve-')));
  const slots = [path.join(workspace, 'a'), path.join(workspace, 'b')] as const;
  let served = 1;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let building: Promise<void> | undefined;
  let pending = false;
  const onError = (cause: unknown) => options.onError?.(cause instanceof Error ? cause : new Error(String(cause)));

  const folders = options.watch
    ? watchFolders(contentDir, () => {
        clearTimeout(timer);
        timer = setTimeout(rebuild, options.debounceMs ?? 100);
      })
    : undefined;

  async function buildOnce(): Promise<BuildResult> {
    // Folders made since the last build are watched before this build reads them.
    await folders?.sync();
    const slot = served === 0 ? 1 : 0;
    const result = await build({
      contentDir,
      outDir: slots[slot],
      baseUrl,
      hosts: [],
      maxFileSize: options.maxFileSize,
      allowCredentialsInOutput: options.allowCredentialsInOutput,
      // The header rules below come from the content: always check it.
      reuse: false,
    });
    if (result.ok && !closed) {
      state.tree = { root: slots[slot], manifest: await readManifest(slots[slot], 'the build'), rules: headerRules(result.content!), rewrites: hasRewrites(options.like ?? 'github-pages') };
      state.headerSource = 'content';
      served = slot;
    }
    options.onBuild?.(result);
    return result;
  }

  /** One build at a time: both would write the same slot. A change during a build queues one more. */
  function track(running: Promise<unknown>) {
    building = running
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        building = undefined;
        if (pending) {
          pending = false;
          rebuild();
        }
      });
  }

  function rebuild() {
    if (closed) return;
    if (building) {
      pending = true;
      return;
    }
    const running = buildOnce();
    running.catch(onError);
    track(running);
  }

  const close = async () => {
    closed = true;
    clearTimeout(timer);
    folders?.close();
    await building;
    await rm(workspace, { recursive: true, force: true });
  };
  try {
    const running = buildOnce();
    track(running);
    const first = await running;
    if (!first.ok && !options.watch) throw new ContentError(first);
  } catch (cause) {
    await close();
    throw cause;
  }
  return { close };
}

/**
 * One watcher per folder of the content, not per file: a folder's watcher sees its files written,
 * created, removed and renamed over. (Node 20's recursive fs.watch on Linux watches each file and
 * goes deaf to a file that an editor saved by renaming a new one over it.) sync() walks the tree
 * again and watches new folders. Folders that load() skips (`.*`, node_modules) are not watched.
 */
function watchFolders(root: string, onChange: () => void): { sync(): Promise<void>; close(): void } {
  const watchers = new Map<string, { ino: number; watcher: FSWatcher }>();
  const skipped = (name: string) => name.startsWith('.') || name === 'node_modules';

  const walk = async (dir: string, found: Map<string, number>): Promise<void> => {
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return;
    found.set(dir, info.ino);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((e) => e.isDirectory() && !skipped(e.name)).map((e) => walk(path.join(dir, e.name), found)));
  };
  const unwatch = (dir: string) => {
    watchers.get(dir)?.watcher.close();
    watchers.delete(dir);
  };

  return {
    async sync() {
      const found = new Map<string, number>();
      await walk(root, found);
      for (const [dir, { ino }] of watchers) if (found.get(dir) !== ino) unwatch(dir);
      for (const [dir, ino] of found) {
        if (watchers.has(dir)) continue;
        try {
          // Swap files and what load() skips do not trigger a build.
          const watcher = watch(dir, (_event, name) => (name && skipped(name) ? undefined : onChange()));
          // A removed folder: forget it; the next build's sync sees what is there now.
          watcher.on('error', () => {
            if (watchers.get(dir)?.watcher === watcher) unwatch(dir);
            onChange();
          });
          watchers.set(dir, { ino, watcher });
        } catch {
          // The folder went away since the walk; the next sync will not find it either.
        }
      }
    },
    close() {
      for (const dir of [...watchers.keys()]) unwatch(dir);
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, tree: Tree | undefined, basePath: string): Promise<void> {
  const method = req.method ?? 'GET';
  // RFC 9112 (3.2) asks for this 400; Node's own (requireHostHeader) would have no body.
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    return sendJson(res, 400, { error: 'an HTTP/1.1 request needs a Host header' });
  }
  if (!tree) {
    if (method === 'OPTIONS') return preflight(res);
    return sendJson(res, 503, { error: 'the content has errors and nothing was built yet; fix them and save' });
  }
  const decision = route(method, req.url ?? '/', { basePath, rewrites: tree.rewrites });
  switch (decision.kind) {
    case 'preflight':
      return preflight(res);
    case 'error':
      return refuseWith(res, decision);
    case 'file': {
      for (const file of decision.paths) {
        const opened = await openInside(tree.root, file);
        if (!opened) continue;
        try {
          return await sendFile(req, res, opened, file, headersFor(tree.rules, `/${file}`));
        } finally {
          await opened.handle.close();
        }
      }
      return refuseWith(res, decision.ifMissing);
    }
  }
}

function refuseWith(res: ServerResponse, refusal: RouteError): void {
  return sendJson(res, refusal.status, { error: refusal.message }, refusal.status === 405 ? { Allow: ALLOWED_METHODS } : {});
}

/** Every response carries these, whatever the rules say: the web client fetches across origins. */
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*' };

function preflight(res: ServerResponse): void {
  res.writeHead(204, { ...CORS, 'Access-Control-Allow-Methods': ALLOWED_METHODS, Allow: ALLOWED_METHODS });
  res.end();
}

/**
 * A JSON answer. Errors are not cached (`no-store`): a client that honoured the path's max-age
 * would keep showing the error after the content is fixed.
 */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...CORS,
    ...(status >= 400 && { 'Cache-Control': 'no-store' }),
    ...headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * Sends one file of the tree, opened by openInside, with the rules' headers. The caller closes it.
 */
async function sendFile(req: IncomingMessage, res: ServerResponse, { handle: file, size }: OpenedFile, name: string, headers: Record<string, string>): Promise<void> {
  const range = byteRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    return sendJson(res, 416, { error: `the range is outside the file's ${size} bytes` }, { 'Content-Range': `bytes */${size}` });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  res.writeHead(range ? 206 : 200, {
    ...CORS,
    ...headers,
    // The extension's type wins over the rules'; for .json it is the same value.
    'Content-Type': contentType(name),
    'Content-Length': String(end - start + 1),
    'Accept-Ranges': 'bytes',
    ...(range && { 'Content-Range': `bytes ${start}-${end}/${size}` }),
  });
  if (req.method === 'HEAD' || end < start) return void res.end();
  // The request closes when its connection does, also while this answer waits behind others
  // (pipelining): then `res` never finishes and the read must stop, or the file stays open.
  const gone = new AbortController();
  const abort = () => gone.abort();
  req.once('close', abort);
  if (req.destroyed) abort(); // closed while the file was being opened
  try {
    // A read error or a client gone mid-way rejects; the server's handler then drops the connection.
    await pipeline(file.createReadStream({ start, end, autoClose: false }), res, { signal: gone.signal });
  } finally {
    req.off('close', abort);
  }
}

/** An answer on a bare connection; `bodiless` for a HEAD request. */
interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
  bodiless?: boolean;
}

/**
 * What to answer a request Node's parser refused (it never reaches route()), by the parser's
 * error code; undefined when the client is gone and there is no one to answer.
 */
function refusalOf(cause: NodeJS.ErrnoException & { rawPacket?: Buffer }): Refusal | undefined {
  const start = cause.rawPacket?.toString('latin1', 0, 64) ?? '';
  // The request line is often read before the parser gives up (on the target, a header); the
  // answer to a HEAD has no body, whatever its status.
  const bodiless = start.startsWith('HEAD ');
  switch (cause.code) {
    case 'ECONNRESET':
    case 'HPE_CLOSED_CONNECTION':
      return undefined;
    // Over Node's limit for the request line and headers together, so a URL over MAX_URL_BYTES
    // but under this limit gets route()'s 414, and a longer one this 431.
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `the request line and headers are over ${maxHeaderSize} bytes`, bodiless };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time', bodiless };
    case 'HPE_INVALID_METHOD':
      // A method the parser does not know (`FOO /x HTTP/1.1`) is still a method; bytes that are
      // not HTTP at all (a TLS handshake) are not.
      return /^[!#$%&'*+.^_`|~\w-]+ /.test(start)
        ? { status: 405, message: `that method is not allowed here; use ${ALLOWED_METHODS}`, headers: { Allow: ALLOWED_METHODS } }
        : { status: 400, message: 'not an HTTP request' };
    default:
      return { status: 400, message: `malformed HTTP request (${cause.code ?? cause.message})`, bodiless };
  }
}

/**
 * A JSON error on a bare connection (for a CONNECT, or a request the parser refused: neither has a
 * response object), then the end of it. Sent once the answers `underway` on it are out.
 */
function refuse(socket: Duplex, underway: Set<ServerResponse> | undefined, refusal: Refusal): void {
  if (underway && underway.size > 0) {
    const sent = [...underway].map((res) => new Promise((resolve) => res.once('close', resolve)));
    void Promise.all(sent).then(() => refuse(socket, undefined, refusal));
    return;
  }
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: refusal.message });
  const head = {
    ...CORS,
    'Cache-Control': 'no-store',
    ...refusal.headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(head).map(([key, value]) => `${key}: ${value}\r\n`);
  const text = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${lines.join('')}\r\n${refusal.bodiless ? '' : body}`;
  // Closed once the answer is out, as Node's own handler does, rather than left half-open.
  socket.end(text, () => socket.destroy());
}

/** A file of the served tree, open, and its size when opened. */
interface OpenedFile {
  handle: FileHandle;
  size: number;
}

/**
 * The file `file` (decoded, `/`-separated) of the tree at `root`, open, if it is a regular file
 * inside it: not a symlink, and not reached through a symlinked folder that leads out. Opened
 * first, then the opened file is checked: a check of the path before the open says nothing about
 * what the open finds when a folder of the tree is swapped for a symlink between the two.
 */
async function openInside(root: string, file: string): Promise<OpenedFile | undefined> {
  const absolute = path.resolve(root, ...file.split('/'));
  if (!absolute.startsWith(root + path.sep)) return undefined;
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: a symlink as the last name is refused, not followed (absent on Windows).
    // O_NONBLOCK: a FIFO put in the tree cannot hold the open, and a thread of libuv's pool, forever.
    handle = await open(absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (info.isFile() && (await isInside(root, absolute, handle.fd, info))) return { handle, size: Number(info.size) };
  } catch {
    // Gone or changed while being checked: as if it were not there.
  }
  await handle.close();
  return undefined;
}

/**
 * Whether the open file `fd`, whose fstat is `info`, lies inside `root`. Linux names the file a
 * descriptor holds (/proc/self/fd), whatever its path has become since: no race is left. Without
 * /proc the path is resolved after the open and must lead, inside the tree, to the same file
 * (device and inode). That narrows the race but does not close it: a folder swapped for a symlink
 * at the open, back at the realpath and out again at the stat still passes (Node has no openat).
 */
async function isInside(root: string, absolute: string, fd: number, info: BigIntStats): Promise<boolean> {
  const held = await readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
  const where = held ?? (await realpath(absolute));
  if (!where.startsWith(root + path.sep)) return false;
  // The same file: also refuses a file deleted since the open, which /proc names `path (deleted)`.
  const there = await stat(where, { bigint: true });
  return there.dev === info.dev && there.ino === info.ino;
}

/** The text of a file of the tree, opened as openInside opens it; undefined when it is not one. */
async function readInside(root: string, file: string): Promise<string | undefined> {
  const opened = await openInside(root, file);
  if (!opened) return undefined;
  try {
    return await opened.handle.readFile('utf8');
  } finally {
    await opened.handle.close();
  }
}


async function readManifest(root: string, what: string): Promise<Manifest> {
  const text = await readInside(root, MANIFEST_FILE);
  if (text === undefined) throw new UsageError(`${what} has no ${MANIFEST_FILE}; build the addon first`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${path.join(what, MANIFEST_FILE)} is not JSON`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The field names and values quoted come from the tree, and a usage error may span lines.
    const problem = printable(`${issue.path.join('.') || 'the object'}: ${issue.message}`);
    throw new UsageError(`${path.join(what, MANIFEST_FILE)} is not an addon manifest: ${problem}`);
  }
  return parsed.data;
}

function checkBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  if (!baseUrlSchema.safeParse(baseUrl).success) {
    throw new UsageError(`--base-url ${baseUrl} is not an http(s) URL without query or fragment (e.g. https://user.github.io/repo/)`);
  }
  return normalizeBaseUrl(baseUrl);
}

/** Listens, or throws a one-line UsageError for the usual reasons a port cannot be had. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (cause: NodeJS.ErrnoException) => {
      const where = `port ${port} on ${host}`;
      if (cause.code === 'EADDRINUSE') reject(new UsageError(`${where} is in use; stop the other server or choose another port with --port`));
      else if (cause.code === 'EACCES') reject(new UsageError(`no permission to listen on ${where}; choose a port above 1023 with --port`));
      else if (cause.code === 'EADDRNOTAVAIL' || cause.code === 'ENOTFOUND') {
        reject(new UsageError(`--host ${host} is not an address of this machine`));
      } else reject(cause);
    });
    server.listen(port, host, () => resolve());
  });
}

/** The URL clients use: a wildcard address is reached at 127.0.0.1, the one address Stremio allows over plain HTTP. */
function listenUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/`;
}
