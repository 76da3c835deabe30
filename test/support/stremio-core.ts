/**
 * Test harness around the real Stremio client core (`@stremio/stremio-core-web`,
 * Rust compiled to WebAssembly), driven the way stremio-web drives it.
 *
 *   const core = await startCore();
 *   await core.installAddon(`${server.url}manifest.json`);
 *   const board = await core.board();
 *   const page = await core.discover({ base, path: { resource: 'catalog', type, id, extra: [] } });
 *   const details = await core.metaDetails('series', 'ex:s1', 'ex:s1:1:2');
 *   await core.stop();
 *
 * - The core starts from a stored profile with NO addons (not even Cinemeta), so only
 *   the test's addon answers. `startCore({ officialAddons: true })` keeps the defaults.
 * - The core's globals (`self`, `document`, `WorkerGlobalScope`, `console`) are given to the
 *   glue code as function parameters, not set on `globalThis`, so nothing leaks into the test
 *   process. Its `fetch` only reaches `http://127.0.0.1` (not :11470, the streaming server);
 *   everything else is rejected at once.
 * - Several cores may run at once: each has its own wasm instance, storage and request log.
 * - Every method resolves after `settle()`: no fetch in flight and no event/storage activity
 *   for `quietMs`. The core has no per-action completion signal.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import vm from 'node:vm';

// ---------------------------------------------------------------------------------------------
// Types (only what the harness itself reads; the rest stays plain JSON)

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The core's Loadable as serialized to JS. */
export type Loadable<T, E = Json> = { type: 'Ready'; content: T } | { type: 'Err'; content: E } | { type: 'Loading'; content?: undefined };

export interface ExtraValue {
  name: string;
  value: string;
}

export interface ResourcePath {
  resource: string;
  type: string;
  id: string;
  /** `[name, value]` pairs (stremio-web's form) or `{name, value}` objects; order is kept. */
  extra: Array<[string, string] | ExtraValue>;
}

export interface ResourceRequest {
  /** The addon's transport URL (ending in `/manifest.json`). */
  base: string;
  path: ResourcePath;
}

export interface FetchRecord {
  url: string;
  /** HTTP status, or null when the fetch was refused/failed (see `error`). */
  status: number | null;
  error: string | null;
  /** Response body as text (null when there was none). */
  body: string | null;
  /** The `Origin` header sent with the request (see `StartCoreOptions.origin`), or null. */
  origin: string | null;
  /** The response's `Access-Control-Allow-Origin` header (null when absent or no response). */
  allowOrigin: string | null;
  /** The response's `Content-Type` header (null when absent or no response). */
  contentType: string | null;
}

export interface BoardCatalog {
  addonId: string;
  type: string;
  id: string;
  name: string;
  /** Null when the board has not requested this catalog (outside the loaded range). */
  content: Loadable<Json[], string> | null;
  /** Ids of the items the board shows. The web serializer keeps at most 10 per row. */
  ids: string[];
  /** `content.content` when Err (a string such as `"Env: Failed to fetch: ..."`), else null. */
  error: string | null;
}

export interface DiscoverResult {
  /** Every item id of every loaded page, in order (the serializer de-duplicates by id). */
  ids: string[];
  /** The items themselves (MetaItemPreview as the core parsed them, plus UI fields). */
  items: Json[];
  /** Error of the first page (a string: `"EmptyContent"`, `"UnexpectedResponse: ..."`, `"Env: ..."`). */
  error: string | null;
  /** Raw paths (relative to the host, undecoded) of the catalog requests the core made, in order. */
  requests: string[];
  /**
   * The request after which paging stopped (the core stops on any page it does not accept as a
   * non-empty list). `error` is null for a proper end page (`{"metas":[]}`), else why that page
   * was not one (`HTTP 404`, `fetch failed: ...`, ...). Null when only one page was requested.
   */
  end: { path: string; status: number | null; error: string | null } | null;
  /** `end.error`: paging stopped on something other than an empty end page. */
  endError: string | null;
  /** The selectable state after loading (types, catalogs, extra with options). */
  selectable: Json;
}

export interface AddonLoadable<T> {
  transportUrl: string;
  content: Loadable<T>;
}

export interface MetaDetailsResult {
  /** The meta item as the core serializes it, or its error (`{type:'Err', content:{type, content}}`). */
  meta: AddonLoadable<Json> | null;
  /** One entry per addon asked for streams (streams as parsed: invalid ones are already gone). */
  streams: AddonLoadable<Json[]>[];
  /** The stream path the core settled on (guessed for movies / defaultVideoId when none given). */
  streamPath: ResourcePath | null;
  /** Full URLs the core fetched for this call. */
  requests: string[];
}

export interface PlayerTarget {
  /** Transport URL of the addon that served the stream (and the meta, unless `metaTransportUrl` says otherwise). */
  transportUrl: string;
  /** Transport URL of the addon that served the meta, when another addon describes the title. */
  metaTransportUrl?: string;
  type: string;
  /** Meta id. */
  id: string;
  videoId: string;
}

export interface VideoParams {
  hash: string | null;
  size: number | null;
  filename: string | null;
}

export interface PlayerResult {
  /**
   * Subtitles the player offers from addons' `subtitles` resource, flattened (each with `lang`,
   * `url`, `origin`, `addonSubtitleId`). Failed or empty responses simply add nothing here.
   */
  subtitles: Json[];
  /** Subtitles embedded in the stream, as the core parsed them (invalid entries dropped). */
  streamSubtitles: Json[];
  metaItem: Loadable<Json> | null;
  /** Full URLs the core fetched for this call. */
  requests: string[];
  /** The subtitles requests among them, with status, since their errors are not in the state. */
  subtitlesFetches: FetchRecord[];
  /** The raw `player` state. */
  state: Json;
}

export interface StartCoreOptions {
  /** Keep the official addons of a fresh profile (Cinemeta & co.; their requests fail fast). */
  officialAddons?: boolean;
  /** Quiet time that counts as settled. Default 30 ms. */
  quietMs?: number;
  /** settle() gives up after this long. Default 10 s. */
  timeoutMs?: number;
  /** Print the core's own log lines (they are always kept in `core.logs`). */
  verbose?: boolean;
  /**
   * Send this `Origin` header on every fetch, as a browser does on a cross-origin request
   * (Stremio Web: `BROWSER_ORIGIN`). Each FetchRecord keeps the response's
   * `Access-Control-Allow-Origin`, so a test can check the CORS a browser would need.
   */
  origin?: string;
}

/** The origin of Stremio Web, for `StartCoreOptions.origin`. */
export const BROWSER_ORIGIN = 'https://web.stremio.com';

export interface Core {
  installAddon(manifestUrl: string): Promise<Json>;
  /**
   * Loads the addon's details page (AddonDetails) for `manifestUrl`, as stremio-web does before an
   * install, and returns the remote addon's loadable: the descriptor (`{manifest, transportUrl,
   * flags}`) when Ready.
   */
  addonDetails(manifestUrl: string): Promise<Loadable<Json>>;
  /**
   * Dispatches InstallAddon with `descriptor` (as `addonDetails` gives it) and returns the
   * `CoreEvent`s emitted meanwhile, whether it was installed or not (`installedAddons()` says).
   */
  installDescriptor(descriptor: Json): Promise<Json[]>;
  /** Transport URLs of the installed addons. */
  installedAddons(): string[];
  board(): Promise<BoardCatalog[]>;
  discover(request: ResourceRequest, opts?: { maxPages?: number }): Promise<DiscoverResult>;
  metaDetails(type: string, id: string, videoId?: string): Promise<MetaDetailsResult>;
  /**
   * Opens the player on `stream` (as returned in `metaDetails().streams`) the way stremio-web's
   * player route does, then reports `videoParams` (default: all null, as a player without the
   * streaming server knows nothing). The core itself prefers the stream's behaviorHints
   * (filename, videoSize, videoHash) over these params. Pass null to send no params at all.
   */
  player(stream: Json, target: PlayerTarget, videoParams?: VideoParams | null): Promise<PlayerResult>;
  /** Low level: dispatch an action to a model field (`null` = ctx) without waiting. */
  dispatch(action: Json, field: string | null): void;
  /** Low level: the serialized state of a model field (`'ctx'`, `'board'`, `'discover'`, ...). */
  state(field: string): Json;
  settle(): Promise<void>;
  /** Every fetch the core attempted, in order. */
  fetches: FetchRecord[];
  /** Every event the core emitted (`{name:'NewState'|'CoreEvent'|..., args}`). */
  events: Json[];
  /** The core's console output (tracing lines, panics). */
  logs: string[];
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Loading the glue code and the wasm once per process

interface Glue {
  default(arg: { module_or_path: WebAssembly.Module }): Promise<unknown>;
  initialize_runtime(emit: (event: Json) => void): Promise<void>;
  dispatch(action: Json, field: string | null, locationHash: string | null): void;
  get_state(field: string): Json;
}

const require = createRequire(import.meta.url);
const PKG_DIR = path.dirname(require.resolve('@stremio/stremio-core-web/package.json'));
const GLUE_FILE = path.join(PKG_DIR, 'stremio_core_web.js');
const WASM_FILE = path.join(PKG_DIR, 'stremio_core_web_bg.wasm');
const GLUE_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', 'self', 'document', 'WorkerGlobalScope', 'console'] as const;

let wasmModule: Promise<WebAssembly.Module> | undefined;
let glueFactory: ((...args: unknown[]) => void) | undefined;

function loadGlue(scope: object, console: Console): Glue {
  // Evaluated afresh per core: the glue keeps its wasm instance in module state, and the
  // runtime refuses a second initialize_runtime in the same instance.
  glueFactory ??= vm.compileFunction(readFileSync(GLUE_FILE, 'utf8'), [...GLUE_PARAMS], {
    filename: GLUE_FILE,
  }) as (...args: unknown[]) => void;
  const module = { exports: {} as Record<string, unknown> };
  const WorkerGlobalScope = class {
    static [Symbol.hasInstance](obj: unknown): boolean {
      return obj === scope;
    }
  };
  glueFactory(
    module.exports,
    createRequire(GLUE_FILE),
    module,
    GLUE_FILE,
    PKG_DIR,
    scope,
    { baseURI: 'http://127.0.0.1/' },
    WorkerGlobalScope,
    console,
  );
  return module.exports as unknown as Glue;
}

// ---------------------------------------------------------------------------------------------
// One core instance

const STREAMING_SERVER_PORT = '11470';

function isAllowed(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && u.hostname === '127.0.0.1' && u.port !== STREAMING_SERVER_PORT;
  } catch {
    return false;
  }
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

interface Instance {
  glue: Glue;
  storage: Map<string, string>;
  fetches: FetchRecord[];
  events: Json[];
  logs: string[];
  settle(): Promise<void>;
  dispose(): void;
}

async function bootInstance(storage: Map<string, string>, opts: StartCoreOptions): Promise<Instance> {
  const quietMs = opts.quietMs ?? 30;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const fetches: FetchRecord[] = [];
  const events: Json[] = [];
  const logs: string[] = [];
  const timers: NodeJS.Timeout[] = [];
  let inFlight = 0;
  let lastActivity = Date.now();
  const touch = (): void => {
    lastActivity = Date.now();
  };

  const coreFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (opts.origin !== undefined) request.headers.set('Origin', opts.origin);
    const record: FetchRecord = {
      url: request.url,
      status: null,
      error: null,
      body: null,
      origin: request.headers.get('Origin'),
      allowOrigin: null,
      contentType: null,
    };
    fetches.push(record);
    inFlight++;
    touch();
    try {
      if (!isAllowed(request.url)) throw new TypeError(`blocked by test harness: ${request.url}`);
      const res = await fetch(request);
      // Read the body here so that "no fetch in flight" also covers the body.
      const body = NULL_BODY_STATUS.has(res.status) ? null : await res.arrayBuffer();
      record.status = res.status;
      record.allowOrigin = res.headers.get('access-control-allow-origin');
      record.contentType = res.headers.get('content-type');
      record.body = body && Buffer.from(body).toString('utf8');
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      inFlight--;
      touch();
    }
  };

  const logLine = (...args: unknown[]): void => {
    // tracing-wasm styles its lines: `%c` markers in the first argument, one CSS argument each.
    const first = String(args[0] ?? '');
    const styles = first.split('%c').length - 1;
    const line = [first.replaceAll('%c', ''), ...args.slice(1 + styles).map(String)].join(' ').trim();
    logs.push(line);
    if (opts.verbose) globalThis.console.log(line);
  };
  const coreConsole = Object.create(globalThis.console, {
    log: { value: logLine },
    error: { value: logLine },
    warn: { value: logLine },
    info: { value: logLine },
    debug: { value: logLine },
  }) as Console;

  // wasm-bindgen's `global()` resolves to `self`: the core calls fetch, setInterval, crypto
  // and navigator on it. Inherit the rest from the real global.
  const scope = Object.create(globalThis) as object;
  const own: Record<string, unknown> = {
    fetch: coreFetch,
    setInterval: (fn: () => void, ms?: number) => {
      const handle: NodeJS.Timeout = setInterval(fn, ms);
      handle.unref();
      timers.push(handle);
      return handle;
    },
    // Node's getters for these throw when read through another receiver.
    crypto: globalThis.crypto,
    performance: globalThis.performance,
    navigator: { language: 'en-US', userAgent: 'addon-gen-tests' },
    app_version: '0.0.0-test',
    shell_version: undefined,
    get_location_hash: async () => '',
    local_storage_get_item: async (key: string) => {
      touch();
      return storage.get(key) ?? null;
    },
    local_storage_set_item: async (key: string, value: string) => {
      touch();
      storage.set(key, value);
    },
    local_storage_remove_item: async (key: string) => {
      touch();
      storage.delete(key);
    },
  };
  for (const [key, value] of Object.entries(own)) {
    Object.defineProperty(scope, key, { value, writable: true, configurable: true, enumerable: true });
  }

  const glue = loadGlue(scope, coreConsole);
  wasmModule ??= WebAssembly.compile(readFileSync(WASM_FILE));
  await glue.default({ module_or_path: await wasmModule });
  await glue.initialize_runtime((event) => {
    events.push(event);
    touch();
  });

  const settle = async (): Promise<void> => {
    const start = Date.now();
    for (;;) {
      await sleep(5);
      const now = Date.now();
      if (inFlight === 0 && now - lastActivity >= quietMs) return;
      if (now - start > timeoutMs) {
        const pending = fetches.filter((f) => f.status === null && f.error === null).map((f) => f.url);
        throw new Error(`stremio core did not settle within ${timeoutMs} ms; in flight: ${pending.join(', ') || 'none'}`);
      }
    }
  };

  return {
    glue,
    storage,
    fetches,
    events,
    logs,
    settle,
    dispose: () => timers.forEach((t) => clearInterval(t)),
  };
}

// A stored profile with no addons. It is taken from a throwaway core's own default profile
// (settings change shape between core versions), so it always matches the installed core.
let emptyProfileStorage: Promise<Map<string, string>> | undefined;

async function makeEmptyProfileStorage(opts: StartCoreOptions): Promise<Map<string, string>> {
  const storage = new Map<string, string>();
  const tmp = await bootInstance(storage, opts);
  try {
    await tmp.settle();
    const profile = tmp.glue.get_state('ctx').profile as Json;
    if (!profile || !Array.isArray(profile.addons) || !profile.settings) {
      throw new Error(`unexpected ctx.profile shape: ${JSON.stringify(profile)?.slice(0, 200)}`);
    }
    const snapshot = new Map(storage);
    snapshot.set('profile', JSON.stringify({ ...profile, addons: [] }));
    return snapshot;
  } finally {
    tmp.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function extraPairs(extra: ResourcePath['extra']): Array<[string, string]> {
  return extra.map((e) => (Array.isArray(e) ? e : [e.name, e.value]));
}

/** Path of a request URL relative to the host root, undecoded (what the static server records). */
function rawPath(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

const RESPONSE_KEYS = ['metas', 'metasDetailed', 'meta', 'streams', 'subtitles', 'addons'];

/** Why a catalog response that stopped paging is not a proper end page, or null if it is one. */
function endPageError(rec: FetchRecord): string | null {
  if (rec.error !== null) return `fetch failed: ${rec.error}`;
  if (rec.status !== 200) return `HTTP ${rec.status}`;
  let body: Json;
  try {
    body = JSON.parse(rec.body ?? '');
  } catch {
    return 'body is not JSON';
  }
  const keys = Object.keys(body ?? {}).filter((k) => RESPONSE_KEYS.includes(k));
  if (keys.length === 1 && keys[0] === 'metas' && (body.metas === null || (Array.isArray(body.metas) && body.metas.length === 0))) {
    return null;
  }
  const n = Array.isArray(body?.metas) ? body.metas.length : 0;
  return `the core rejected this page (response keys [${keys.join(', ')}], ${n} metas, none accepted)`;
}

function addonLoadables<T>(list: Json[] | undefined): AddonLoadable<T>[] {
  return (list ?? []).map((r) => ({ transportUrl: r.addon?.transportUrl ?? null, content: r.content }));
}

/** Returns `loadable.content` when Ready, else throws with the core's error (for terse tests). */
export function ready<T>(loadable: Loadable<T> | null | undefined, what = 'loadable'): T {
  if (!loadable) throw new Error(`${what}: not loaded`);
  if (loadable.type === 'Ready') return loadable.content;
  throw new Error(`${what}: ${loadable.type} ${JSON.stringify(loadable.content ?? null)}`);
}

// ---------------------------------------------------------------------------------------------

export async function startCore(opts: StartCoreOptions = {}): Promise<Core> {
  let storage = new Map<string, string>();
  if (!opts.officialAddons) {
    emptyProfileStorage ??= makeEmptyProfileStorage(opts);
    storage = new Map(await emptyProfileStorage);
  }
  const inst = await bootInstance(storage, opts);
  const { glue, fetches, settle } = inst;

  const dispatch = (action: Json, field: string | null): void => glue.dispatch(action, field, null);
  const state = (field: string): Json => glue.get_state(field);
  const installedAddons = (): string[] => (state('ctx').profile.addons as Json[]).map((a) => a.transportUrl as string);

  await settle();
  if (!opts.officialAddons && installedAddons().length !== 0) {
    throw new Error(`stored empty profile was not used: ${installedAddons().join(', ')}`);
  }

  /** Runs `fn`, settles, and returns the URLs fetched meanwhile. */
  const track = async (fn: () => void | Promise<void>): Promise<string[]> => {
    const from = fetches.length;
    await fn();
    await settle();
    return fetches.slice(from).map((f) => f.url);
  };

  // Unload first, as leaving a route in stremio-web does: a Load equal to the current
  // selection is otherwise a no-op and each call should observe fresh requests.
  const load = (model: string, args: Json, field: string): void => {
    dispatch({ action: 'Unload' }, field);
    dispatch({ action: 'Load', args: { model, args } }, field);
  };

  const core: Core = {
    fetches,
    events: inst.events,
    logs: inst.logs,
    dispatch,
    state,
    settle,
    installedAddons,

    async addonDetails(manifestUrl) {
      await track(() => load('AddonDetails', { transportUrl: manifestUrl }, 'addon_details'));
      const remote = state('addon_details')?.remoteAddon;
      return (remote?.content ?? { type: 'Loading' }) as Loadable<Json>;
    },

    async installDescriptor(descriptor) {
      const eventsFrom = inst.events.length;
      await track(() => dispatch({ action: 'Ctx', args: { action: 'InstallAddon', args: descriptor } }, null));
      return inst.events.slice(eventsFrom).filter((e) => e.name === 'CoreEvent');
    },

    async installAddon(manifestUrl) {
      const loadable = await core.addonDetails(manifestUrl);
      if (loadable.type !== 'Ready') {
        throw new Error(`addon details for ${manifestUrl}: ${JSON.stringify(loadable)}`);
      }
      const descriptor = loadable.content;
      const events = await core.installDescriptor(descriptor);
      const installed = (state('ctx').profile.addons as Json[]).find((a) => a.transportUrl === descriptor.transportUrl);
      if (!installed) throw new Error(`install of ${manifestUrl} failed: ${JSON.stringify(events)}`);
      return installed;
    },

    async board() {
      await track(() => {
        load('CatalogsWithExtra', { extra: [] }, 'board');
        dispatch({ action: 'CatalogsWithExtra', args: { action: 'LoadRange', args: { start: 0, end: 1000 } } }, 'board');
      });
      const catalogs = (state('board').catalogs ?? []) as Json[];
      return catalogs.map((c) => {
        const content = (c.content ?? null) as Loadable<Json[], string> | null;
        return {
          addonId: c.addon?.manifest?.id,
          type: c.type,
          id: c.id,
          name: c.name,
          content,
          ids: content?.type === 'Ready' ? content.content.map((i) => i.id as string) : [],
          error: content?.type === 'Err' ? content.content : null,
        };
      });
    },

    async discover(request, { maxPages = 50 } = {}) {
      const req = { base: request.base, path: { ...request.path, extra: extraPairs(request.path.extra) } };
      const root = req.base.replace(/\/manifest\.json$/, '');
      const from = fetches.length;
      load('CatalogWithFilters', { request: req }, 'discover');
      await settle();
      let pages = 1;
      for (; pages < maxPages && state('discover').selectable?.nextPage; pages++) {
        dispatch({ action: 'CatalogWithFilters', args: { action: 'LoadNextPage' } }, 'discover');
        await settle();
      }
      const s = state('discover');
      const catalog = s.catalog?.content as Loadable<Json[], string> | undefined;
      const items = catalog?.type === 'Ready' ? catalog.content : [];
      const pageFetches = fetches.slice(from).filter((f) => f.url.startsWith(`${root}/`));
      const result: DiscoverResult = {
        ids: items.map((i) => i.id as string),
        items,
        error: catalog?.type === 'Err' ? catalog.content : null,
        requests: pageFetches.map((f) => rawPath(f.url)),
        end: null,
        endError: null,
        selectable: s.selectable,
      };
      // The web serializer shows only the first page's error and drops failed later pages, and
      // the core strips `skip` from every Load, so the page that stopped paging cannot be loaded
      // on its own: judge it from the response the core received instead.
      const last = pageFetches.at(-1);
      if (s.selectable?.nextPage) {
        result.endError = `still more pages after maxPages (${maxPages})`;
      } else if (catalog?.type === 'Ready' && pageFetches.length > 1 && last) {
        const error = endPageError(last);
        result.end = { path: rawPath(last.url), status: last.status, error };
        result.endError = error;
      }
      return result;
    },

    async metaDetails(type, id, videoId) {
      const requests = await track(() =>
        load(
          'MetaDetails',
          {
            metaPath: { resource: 'meta', type, id, extra: [] },
            streamPath: videoId === undefined ? null : { resource: 'stream', type, id: videoId, extra: [] },
            guessStream: true,
          },
          'meta_details',
        ),
      );
      const s = state('meta_details');
      const meta = s.metaItem ? { transportUrl: s.metaItem.addon?.transportUrl ?? null, content: s.metaItem.content } : null;
      return {
        meta,
        streams: addonLoadables<Json[]>(s.streams),
        streamPath: s.selected?.streamPath ?? null,
        requests,
      };
    },

    async player(stream, target, videoParams) {
      // Drop the UI-only fields the serializer adds to a stream.
      const { deepLinks: _d, progress: _p, lastUsed: _l, ...coreStream } = stream as Record<string, unknown>;
      const params = videoParams === undefined ? { hash: null, size: null, filename: null } : videoParams;
      const from = fetches.length;
      const requests = await track(async () => {
        load(
          'Player',
          {
            stream: coreStream,
            streamRequest: { base: target.transportUrl, path: { resource: 'stream', type: target.type, id: target.videoId, extra: [] } },
            metaRequest: {
              base: target.metaTransportUrl ?? target.transportUrl,
              path: { resource: 'meta', type: target.type, id: target.id, extra: [] },
            },
            subtitlesPath: { resource: 'subtitles', type: target.type, id: target.videoId, extra: [] },
          },
          'player',
        );
        if (params) {
          await settle();
          dispatch({ action: 'Player', args: { action: 'VideoParamsChanged', args: { videoParams: params } } }, 'player');
        }
      });
      const s = state('player');
      return {
        subtitles: (s.subtitles ?? []) as Json[],
        streamSubtitles: (s.stream?.content?.subtitles ?? []) as Json[],
        metaItem: s.metaItem?.content ?? null,
        requests,
        subtitlesFetches: fetches.slice(from).filter((f) => new URL(f.url).pathname.includes('/subtitles/')),
        state: s,
      };
    },

    async stop() {
      await settle().catch(() => undefined);
      inst.dispose();
    },
  };
  return core;
}
