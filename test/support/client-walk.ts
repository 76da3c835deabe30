/**
 * A full client walk: everything a user of one installed addon could open, opened with the real
 * Stremio client core (test/support/stremio-core.ts), with every problem counted, not thrown.
 *
 *   const core = await startCore({ origin: BROWSER_ORIGIN });
 *   const walk = await walkAddon(core, `${host.url}manifest.json`);
 *   expect(walk.failures).toEqual([]);
 *
 * In order: install; the board (every catalog without a required extra); Discover on every
 * catalog with no filter and with every option of every extra that has options, paged with
 * LoadNextPage to the end; the meta of every item listed anywhere (and of `opts.items`); the
 * streams of a movie-like item (no videos) or of every video; the player on every stream with no
 * video params (a browser without the streaming server: the core takes the subtitles extras from
 * the stream's behaviorHints), and once per item or video on a stream without hints (as one from
 * another addon: the plain `subtitles/{type}/{id}.json` request).
 *
 * Then every request to the addon's origin must have answered 200 and, when the core sends an
 * `Origin` (StartCoreOptions.origin), `Access-Control-Allow-Origin: *`.
 *
 * The core should be fresh (or at least have no other addon installed): the walk reads every
 * fetch the core makes from the moment it starts.
 *
 * Subtitles requests the core makes (stremio-core-web 0.62, player loaded with no video params):
 * - a stream with `behaviorHints` filename / videoSize / videoHash: one request with those that are
 *   present as extras, always in the order filename, videoSize, videoHash, each value encoded like
 *   encodeURIComponent: `subtitles/movie/odd%3Ax/filename=a%20b.mkv&videoSize=123&videoHash=8e24.json`;
 * - a stream with none of them: no subtitles request at all until the player reports video params;
 *   with params all null, the plain `subtitles/{type}/{id}.json` (what the synthetic stream gets).
 *
 * Time: most of a walk is the core harness's settle() (quietMs, default 30 ms, after each of
 * about 100 to 150 steps); `startCore({ quietMs: 15 })` halves it.
 */
import type { Core, FetchRecord, Json, PlayerTarget, VideoParams } from './stremio-core.js';

export interface WalkItem {
  type: string;
  id: string;
}

export interface WalkOptions {
  /** Items no catalog lists, opened like the listed ones. */
  items?: WalkItem[];
  /** The stream given to the player once per item or video (default `SYNTHETIC_STREAM`). */
  syntheticStream?: Json;
  /** Discover gives up paging a listing after this many pages (a failure). Default 1000. */
  maxPages?: number;
  /** Progress lines (one per step), e.g. `console.log`. */
  log?: (line: string) => void;
}

export interface WalkRequest {
  /** Full URL, as the core fetched it (percent-encoded). */
  url: string;
  /** HTTP status; 0 when the fetch failed without a response. */
  status: number;
  allowOrigin: string | null;
  contentType: string | null;
}

export interface WalkCounts {
  /** Items listed, summed over every Discover listing opened (each catalog unfiltered, and per option). */
  catalogItems: number;
  /** Metas opened and Ready (one per distinct item). */
  metas: number;
  /** Streams the core accepted, summed over every movie-like item and every video. */
  streams: number;
  /** Subtitles the player got from the addon's subtitles resource on the stream without hints, summed over items and videos. */
  subtitles: number;
  /** Requests to the addon's base URL. */
  requests: number;
}

export interface WalkResult {
  /** One human-readable line per problem, each naming the URL (or the item) concerned. */
  failures: string[];
  counts: WalkCounts;
  /** Every request the core made under the addon's base URL, in order. */
  requests: WalkRequest[];
  /** Distinct items opened, in order (listed ones first, then `opts.items`). */
  items: WalkItem[];
  /** The paths (after the base URL, undecoded) of every subtitles request, in order. */
  subtitlesRequests: string[];
  /** Milliseconds the walk took. */
  ms: number;
}

/** A stream with no behaviorHints: the player then asks the plain `subtitles/{type}/{id}.json`. */
export const SYNTHETIC_STREAM = { url: 'http://127.0.0.1:9/none.mp4', name: 'Synthetic' };

const NO_PARAMS: VideoParams = { hash: null, size: null, filename: null };

const errorText = (content: Json): string => (typeof content === 'string' ? content : JSON.stringify(content ?? null));

/** An Err the core gives for a well-formed empty list: "no content", not a failure of the request. */
const isEmptyContent = (content: Json): boolean => content === 'EmptyContent' || content?.type === 'EmptyContent';

export async function walkAddon(core: Core, manifestUrl: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const from = core.fetches.length;
  const failures: string[] = [];
  const fail = (line: string): void => {
    failures.push(line);
    log(`FAIL ${line}`);
  };
  const counts: WalkCounts = { catalogItems: 0, metas: 0, streams: 0, subtitles: 0, requests: 0 };
  const base = manifestUrl.replace(/manifest\.json(\?.*)?$/, '');
  const origin = new URL(manifestUrl).origin;
  const items: WalkItem[] = [];
  /** Subtitles URLs whose failure the player step reported (with its stream): not reported twice. */
  const reportedByPlayer = new Set<string>();
  const seen = new Set<string>();
  const addItem = (type: string, id: string): void => {
    const key = JSON.stringify([type, id]);
    if (seen.has(key)) return;
    seen.add(key);
    items.push({ type, id });
  };

  const finish = (): WalkResult => {
    const fetches = core.fetches.slice(from);
    // Every request to the addon's origin: status 200, and CORS when the core sent an Origin.
    const reported = new Set<string>();
    for (const f of fetches) {
      if (!f.url.startsWith(`${origin}/`)) continue;
      const problems: string[] = [];
      if (reportedByPlayer.has(f.url)) {
        // Already reported, with the stream that asked it.
      } else if (f.error !== null) problems.push(`fetch failed (${f.error})`);
      else if (f.status !== 200) problems.push(`HTTP ${f.status}`);
      if (f.origin !== null && f.status !== null && f.allowOrigin !== '*') {
        problems.push(`Access-Control-Allow-Origin is ${f.allowOrigin === null ? 'missing' : JSON.stringify(f.allowOrigin)}, not *`);
      }
      for (const problem of problems) {
        const line = `${problem}: ${f.url} (${describeUrl(f.url, base)})`;
        if (reported.has(line)) continue;
        reported.add(line);
        fail(line);
      }
    }
    const addonFetches = fetches.filter((f) => f.url.startsWith(base));
    const requests = addonFetches.map(toRequest);
    counts.requests = requests.length;
    const subtitlesRequests = addonFetches.map((f) => f.url.slice(base.length)).filter((p) => p.startsWith('subtitles/'));
    return { failures, counts, requests, items, subtitlesRequests, ms: Date.now() - started };
  };

  // --- Install
  let descriptor: Json;
  try {
    descriptor = await core.installAddon(manifestUrl);
  } catch (err) {
    fail(`install failed: ${manifestUrl}: ${message(err)}`);
    return finish();
  }
  const transportUrl: string = descriptor.transportUrl;
  const catalogs: Json[] = descriptor.manifest?.catalogs ?? [];
  log(`installed ${transportUrl}: ${catalogs.length} catalogs`);

  const extrasOf = (catalog: Json): Json[] =>
    Array.isArray(catalog.extra) ? catalog.extra : (catalog.extraSupported ?? []).map((name: string) => ({ name }));
  const required = (catalog: Json): Json[] => extrasOf(catalog).filter((e) => e.isRequired === true);
  const catalogLabel = (c: Json) => `catalog ${c.type}/${c.id}`;

  // --- Board: every catalog without a required extra, no error.
  const board = await core.board();
  for (const catalog of catalogs.filter((c) => required(c).length === 0)) {
    const row = board.find((r) => r.type === catalog.type && r.id === catalog.id);
    const url = `${base}catalog/${encodeURIComponent(catalog.type)}/${encodeURIComponent(catalog.id)}.json`;
    if (!row) fail(`board: ${catalogLabel(catalog)} is missing from the board: ${url}`);
    else if (row.content === null) fail(`board: ${catalogLabel(catalog)} was not loaded: ${url}`);
    else if (row.error !== null && !isEmptyContent(row.error)) fail(`board: ${catalogLabel(catalog)}: ${row.error}: ${url}`);
    else row.ids.forEach((id, i) => addItem(row.content?.type === 'Ready' ? (row.content.content[i]?.type ?? catalog.type) : catalog.type, id));
  }
  log(`board: ${board.length} rows`);

  // --- Discover: every catalog, no filter and every option of every extra with options.
  for (const catalog of catalogs) {
    const req = required(catalog);
    if (req.some((e) => !Array.isArray(e.options) || e.options.length === 0)) continue; // search-only: not in Discover
    const defaults: [string, string][] = req.map((e) => [e.name, String(e.options[0])]);
    const filters: [string, string][][] = [];
    if (req.length === 0) filters.push([]);
    for (const extra of extrasOf(catalog)) {
      if (extra.name === 'skip' || !Array.isArray(extra.options)) continue;
      for (const option of extra.options) {
        filters.push([...defaults.filter(([name]) => name !== extra.name), [extra.name, String(option)]]);
      }
    }
    for (const extra of filters) {
      const label = `${catalogLabel(catalog)}${extra.map(([k, v]) => ` ${k}=${v}`).join('')}`;
      let result: Awaited<ReturnType<Core['discover']>>;
      try {
        result = await core.discover(
          { base: transportUrl, path: { resource: 'catalog', type: catalog.type, id: catalog.id, extra } },
          { maxPages: opts.maxPages ?? 1000 },
        );
      } catch (err) {
        fail(`discover: ${label}: ${message(err)}`);
        continue;
      }
      const first = result.requests[0] ? `${origin}${result.requests[0]}` : '(no request)';
      if (result.error !== null && !isEmptyContent(result.error)) {
        fail(`discover: ${label}: ${result.error}: ${first}`);
        continue;
      }
      if (result.endError !== null) {
        fail(`discover: ${label}: paging ended on ${result.endError}: ${result.end ? origin + result.end.path : first}`);
      }
      if (new Set(result.ids).size !== result.items.length) fail(`discover: ${label}: duplicate ids across pages: ${first}`);
      counts.catalogItems += result.items.length;
      for (const item of result.items) addItem(item.type ?? catalog.type, item.id);
      log(`discover: ${label}: ${result.items.length} items, ${result.requests.length} requests`);
    }
  }
  for (const item of opts.items ?? []) addItem(item.type, item.id);

  // --- Every item: meta, streams, player.
  const synthetic = opts.syntheticStream ?? SYNTHETIC_STREAM;
  const ourStreams = (list: { transportUrl: string; content: Json }[]) => list.filter((s) => s.transportUrl === transportUrl);

  const openPlayer = async (stream: Json, target: PlayerTarget, label: string, params: VideoParams | null): Promise<number> => {
    const player = await core.player(stream, target, params);
    for (const f of player.subtitlesFetches) {
      if (f.status === 200) continue;
      reportedByPlayer.add(f.url);
      fail(`player: ${label}: subtitles ${f.error ?? `HTTP ${f.status}`}: ${f.url} (${describeUrl(f.url, base)})`);
    }
    return player.subtitles.filter((s: Json) => subtitleFromAddon(s, descriptor)).length;
  };

  /** Streams of one owner (the item itself or a video), then the player on each and on the synthetic stream. */
  const walkOwner = async (type: string, id: string, videoId: string, streamsLoadable: Json | undefined, streamUrl: string) => {
    const label = videoId === id ? `${type} ${JSON.stringify(id)}` : `${type} ${JSON.stringify(id)} video ${JSON.stringify(videoId)}`;
    let streams: Json[] = [];
    if (!streamsLoadable) {
      fail(`streams of ${label}: the core did not ask this addon: ${streamUrl}`);
    } else if (streamsLoadable.type === 'Ready') {
      streams = streamsLoadable.content;
    } else if (streamsLoadable.type === 'Err' && isEmptyContent(streamsLoadable.content)) {
      streams = [];
    } else {
      fail(`streams of ${label}: ${streamsLoadable.type} ${errorText(streamsLoadable.content)}: ${streamUrl}`);
    }
    counts.streams += streams.length;
    const target: PlayerTarget = { transportUrl, type, id, videoId };
    for (const [i, stream] of streams.entries()) {
      await openPlayer(stream, target, `${label} stream ${i + 1}`, null);
    }
    counts.subtitles += await openPlayer(synthetic, target, `${label} stream without hints`, NO_PARAMS);
  };

  for (const item of items) {
    try {
      await walkItem(item);
    } catch (err) {
      fail(`${item.type} ${JSON.stringify(item.id)}: ${message(err)}`);
    }
  }

  return finish();

  async function walkItem({ type, id }: WalkItem): Promise<void> {
    const metaUrl = `${base}meta/${encodeURIComponent(type)}/${encodeURIComponent(id)}.json`;
    const streamUrl = (videoId: string) => `${base}stream/${encodeURIComponent(type)}/${encodeURIComponent(videoId)}.json`;
    const details = await core.metaDetails(type, id);
    const meta = details.meta;
    if (!meta) {
      fail(`meta of ${type} ${JSON.stringify(id)}: the core did not ask this addon: ${metaUrl}`);
      return;
    }
    if (meta.content.type !== 'Ready') {
      fail(`meta of ${type} ${JSON.stringify(id)}: ${meta.content.type} ${errorText(meta.content.content)}: ${metaUrl}`);
      return;
    }
    counts.metas++;
    const videos: Json[] = meta.content.content.videos ?? [];
    log(`meta ${type} ${id}: ${videos.length} videos`);
    if (videos.length === 0) {
      // The core guesses the stream path of a movie-like item (its own id) on the detail page.
      let loaded = details;
      if (details.streamPath?.id !== id) loaded = await core.metaDetails(type, id, id);
      await walkOwner(type, id, id, ourStreams(loaded.streams)[0]?.content, streamUrl(id));
    } else {
      for (const video of videos) {
        const loaded = await core.metaDetails(type, id, video.id);
        await walkOwner(type, id, video.id, ourStreams(loaded.streams)[0]?.content, streamUrl(video.id));
      }
    }
  }
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The player names each addon subtitle `{transportUrl}_{n}`, with `origin` the addon's name. */
function subtitleFromAddon(subtitle: Json, descriptor: Json): boolean {
  return typeof subtitle.id === 'string' && subtitle.id.startsWith(`${descriptor.transportUrl}_`);
}

function toRequest(f: FetchRecord): WalkRequest {
  return { url: f.url, status: f.status ?? 0, allowOrigin: f.allowOrigin, contentType: f.contentType };
}

/** The path after the base URL, decoded where it can be, for reading. */
function describeUrl(url: string, base: string): string {
  const rel = url.startsWith(base) ? url.slice(base.length) : new URL(url).pathname;
  try {
    return decodeURIComponent(rel);
  } catch {
    return rel;
  }
}
