// `addon-gen serve`: a local host for the addon that answers as the static hosts do, no better.
// `route` decides every answer from the request alone (route.ts); http.ts sends the answers;
// tree-files.ts reads the tree without leaving it; watch.ts builds it and rebuilds it. startServer puts them together.
import { realpath } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BuildResult } from '../build/index.js';
import { UsageError } from '../diagnostics/index.js';
import { hasRewrites, type Host } from '../hosts/index.js';
import { manifestUrl as manifestUrlOf } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';
import { createAddonServer, errorCode, readManifest } from './http.js';
import { readInside } from './tree-files.js';
import { parseHeadersFile } from './route.js';
import { startBuilds, type Builds, type ServedState } from './watch.js';

export {
  ALLOWED_METHODS,
  byteRange,
  installLinks,
  MAX_URL_BYTES,
  parseHeadersFile,
  route,
  type Route,
  type RouteError,
  type RouteOptions,
} from './route.js';
import { baseUrlOption } from '../shared/locations.js';
export { ContentError } from './watch.js';

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
  /** Quiet time after the last change before a rebuild, in ms; default 50. */
  debounceMs?: number;
  /** Every build's result: the first, and each rebuild under `watch` (failed ones keep the last good tree). */
  onBuild?: (result: BuildResult) => void;
  /**
   * Under `watch`, the paths a rebuild answers from then on as it will write them, before it
   * ends (plan/early-answers.ts): once it has checked the edited files, the meta, stream and
   * subtitles files of their items; once it has checked the content, the catalog pages that
   * changed. Each call has the paths not told before; `removed`, those of them answered as missing
   * (the files of an item removed).
   */
  onEarly?: (paths: readonly string[], removed: readonly string[]) => void;
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

  const server = createAddonServer(() => ({ tree: state.tree, basePath }));
  const host = options.host ?? '127.0.0.1';
  const url = listenUrl(await listen(server, options.port ?? 7000, host));

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
    const baseUrl = (await baseUrlOption(options.baseUrl)) ?? url;
    const rewrites = hasRewrites(options.like ?? 'github-pages');
    basePath = new URL(baseUrl).pathname;
    if (options.dir !== undefined) {
      const root = await realpath(options.dir).catch(() => {
        throw new UsageError(`--dir ${options.dir} does not exist`);
      });
      const headersFile = readInside(root, '_headers');
      state.headerSource = headersFile === undefined ? 'none' : '_headers';
      state.tree = { root, manifest: (await readManifest(root, options.dir)).manifest, rules: parseHeadersFile(headersFile ?? ''), rewrites };
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

/**
 * Listens, or throws a one-line UsageError for the usual reasons a port cannot be had. Gives the
 * address listened on.
 */
function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', (cause: Error) => {
      const code = errorCode(cause);
      const where = `port ${port} on ${host}`;
      if (code === 'EADDRINUSE') reject(new UsageError(`${where} is in use; stop the other server or choose another port with --port`));
      else if (code === 'EACCES') reject(new UsageError(`no permission to listen on ${where}; choose a port above 1023 with --port`));
      else if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
        reject(new UsageError(`--host ${host} is not an address of this machine`));
      } else reject(cause);
    });
    server.listen(port, host, () => {
      const address = server.address();
      if (isAddressInfo(address)) return resolve(address);
      server.close();
      reject(new Error(`listening on ${String(address)}, not on a TCP port`));
    });
  });
}

/** Whether server.address() is a TCP address: the name of a pipe is a string, no address null. */
function isAddressInfo(address: string | AddressInfo | null): address is AddressInfo {
  return typeof address === 'object' && address !== null;
}

/** The URL clients use: a wildcard address is reached at 127.0.0.1, the one address Stremio allows over plain HTTP. */
function listenUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/`;
}
