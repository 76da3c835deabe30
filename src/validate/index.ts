// Stage 2, validate: check the loaded YAML against the content schemas and across items, and
// resolve it into `Content`, the complete, checked description of the addon that plan lays out.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { formatPath, hasErrors, suggester, type Diagnostic, type DiagnosticList } from '../diagnostics/index.js';
import { issuesToDiagnostics, type Locator } from './issues.js';
import { byteSize, contentBytes, OUTPUT_LIMIT, outputLimit } from '../shared/output-limit.js';
import { locate, type Loaded, type SourceFile, type SourceValue } from '../load/index.js';
import { ASSETS_DIR, isLoopback, normalizeBaseUrl, publicUrl } from '../shared/paths.js';
import { expandVariables, needsWalk, policyLists, secretPolicy, secretsIn, type Environment, type SecretPolicy } from './secrets.js';
import {
  baseUrl as baseUrlSchema,
  contentSchemas,
  fileNameProblem,
  type AddonSettings,
  type CatalogSettings,
  type ContentItem,
  type ContentStream,
  type ContentSubtitle,
  type ContentVideo,
  type IssueParams,
  type LocalFileResolver,
} from './schema.js';

export type Subtitle = Required<ContentSubtitle>;
export type Stream = Omit<ContentStream, 'subtitles'> & { subtitles?: Subtitle[] };

export interface Video extends Omit<ContentVideo, 'id' | 'title' | 'streams' | 'subtitles' | 'trailerStreams'> {
  id: string;
  title: string;
  streams: Stream[];
  subtitles: Subtitle[];
  trailerStreams?: Stream[];
}

export interface Item extends Omit<ContentItem, 'videos' | 'streams' | 'subtitles' | 'trailerStreams'> {
  streams: Stream[];
  subtitles: Subtitle[];
  trailerStreams?: Stream[];
  /** In the client's order: season, episode, release date; specials (season 0) last. */
  videos?: Video[];
  /** Where a part of the item is written (`where(['id'])`), for diagnostics found later. */
  where: Locator;
  /** The file the item is written in: a rebuild skips rendering items of unchanged files. */
  source: SourceFile;
}

/** What a stream file and a subtitles file belong to: a video, or an item without videos. */
export interface StreamOwner {
  id: string;
  streams: Stream[];
  subtitles: Subtitle[];
}

export function streamOwners(item: Item): StreamOwner[] {
  return item.videos ?? [item];
}

export interface Catalog {
  id: string;
  type: string;
  name: string;
  /** The genre filter's options; empty when the catalog has no genre filter. */
  genres: string[];
  /** Members in catalog order. */
  items: Item[];
  /** Where the catalog is declared in addon.yaml (`where(['genres'])`), for diagnostics found later. */
  where: Locator;
}

export interface Asset {
  /** Output path below the output folder. */
  path: string;
  /** Absolute path of the content file to copy. */
  source: string;
}

export interface Content {
  addon: Omit<AddonSettings, 'catalogs'>;
  /** The bytes of the text the output is built from: addon.yaml and the items' files (see _output-limit.ts). */
  textBytes: number;
  /** Normalized (ends in `/`); undefined when neither addon.yaml nor a flag gives one. */
  baseUrl?: string;
  types: string[];
  idPrefixes: string[];
  catalogs: Catalog[];
  items: Item[];
  assets: Asset[];
  /** The variables that `${NAME}` replaced, with their values: the output depends on them too. */
  variables: Record<string, string>;
}

export interface ValidateOptions {
  /** The `--base-url` flag; wins over `baseUrl` in addon.yaml. */
  baseUrl?: string;
  contentDir: string;
  /** Variables for `${NAME}` in values; default `process.env`. */
  env?: Environment;
  /** Credentials in `proxyHeaders` are a warning instead of an error. */
  allowCredentialsInOutput?: boolean;
}

export interface Validated {
  content?: Content;
  diagnostics: Diagnostic[];
}

/**
 * The item at which the item schema is compiled. `z.compile` generates zod's own parser for a
 * schema, in about 30 ms: it checks a valid item of the large benchmark in a third of the time,
 * with half the garbage (validate took 0.4 s less), and hands an invalid one to the runtime
 * parser, so what is reported does not change. Worth it from a few thousand items.
 */
export const COMPILE_ITEM_SCHEMA_AT = 2000;

/** Checks everything that was loaded; `content` is set only when no error was found. */
export async function validate(loaded: Loaded, options: ValidateOptions): Promise<Validated> {
  // One list with those of loading, which goes on while items are read: one limit per file.
  const diagnostics = loaded.diagnostics;
  const files = localFiles(options.contentDir);
  const schemas = contentSchemas(files.resolve);

  // Variables first: `baseUrl: ${BASE_URL}` is read right below. Only files that hold a
  // reference or a guarded value are walked. Whether one does is found once per file: searched
  // once per item, a file of 200,000 items would be read 200,000 times.
  const env = options.env ?? process.env;
  const lists = policyLists(loaded.addon?.value);
  const policy = secretPolicy(env, lists.secrets, lists.publish);
  const used = new Map<string, string>();
  const walked = new Map<SourceFile, boolean>();
  const needsWalkOnce = (source: SourceFile): boolean => {
    if (!walked.has(source)) walked.set(source, needsWalk(source.text, policy));
    return walked.get(source)!;
  };
  const expand = (value: SourceValue, skip?: string[]): ReadonlySet<string> =>
    needsWalkOnce(value.source)
      ? expandVariables(value.value, env, policy, locatorOf(value), diagnostics, skip, used)
      : new Set();
  const addonFailed = loaded.addon ? expand(loaded.addon, ['secrets', 'publish']) : new Set<string>();
  // Also percent-encoded, as a pasted signed URL has it.
  for (const { name } of options.baseUrl === undefined ? [] : secretsIn(options.baseUrl, policy)) {
    diagnostics.push({
      code: 'secret-in-output',
      severity: 'error',
      message: `--base-url holds the value of ${name}, a secret: every page and local file URL would publish it`,
      hint: `give the public address without credentials; if ${name} is meant to be public, list it under \`publish:\` in addon.yaml`,
    });
  }

  // The base URL decides what local files become; read it before the settings are checked, so
  // that a mistake elsewhere in addon.yaml does not turn every local file into a second error.
  const baseUrlSetting = options.baseUrl ?? baseUrlOf(loaded.addon?.value);
  const baseUrl = baseUrlSetting === undefined ? undefined : normalizeBaseUrl(baseUrlSetting);
  let addon: AddonSettings | undefined;
  if (loaded.addon) {
    files.from(loaded.addon, baseUrl);
    addon = parseWith(schemas.addon, loaded.addon, diagnostics, addonFailed);
  }

  const items: Item[] = [];
  const catalogIndex = addon ? indexCatalogs(addon.catalogs) : undefined;
  const suggest = suggester();
  let itemSchema = schemas.item;
  let checked = 0;
  for await (const value of loaded.items) {
    if (++checked === COMPILE_ITEM_SCHEMA_AT) itemSchema = z.compile(schemas.item);
    const failed = expand(value);
    files.from(value, baseUrl);
    const parsed = parseWith(itemSchema, value, diagnostics, failed);
    if (!parsed) continue;
    const at = locatorOf(value);
    checkCredentials(parsed, at, options.allowCredentialsInOutput ?? false, diagnostics);
    items.push(normalizeItem(parsed, at, value.source, diagnostics, suggest));
    if (catalogIndex) {
      checkType(parsed, catalogIndex, addon!.types, at, diagnostics, suggest);
      checkCatalogNames(parsed, catalogIndex, at, diagnostics, suggest);
    }
  }
  if (!addon || !loaded.addon) return { diagnostics: diagnostics.list() };

  checkUniqueIds(items, diagnostics);
  const inputBytes = contentBytes([loaded.addon.source, ...items.map((item) => item.source)]);
  const catalogs = resolveCatalogs(addon.catalogs, items, inputBytes, locatorOf(loaded.addon), diagnostics, suggest);
  warnUncatalogued(items, catalogs, catalogIndex?.typos ?? new Map(), diagnostics);
  const { catalogs: _settings, ...settings } = addon;
  const content: Content = {
    addon: settings,
    textBytes: inputBytes,
    baseUrl,
    types: addon.types ?? uniqueInOrder([...addon.catalogs.map((c) => c.type), ...items.map((i) => i.type)]),
    idPrefixes: addon.idPrefixes ?? derivePrefixes(items.flatMap(idsOf)),
    catalogs,
    items,
    assets: files.assets(),
    variables: Object.fromEntries([...used].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  checkAssetSecrets(content.assets, policy, options.contentDir, diagnostics);
  checkBaseUrlScheme(baseUrl, options.baseUrl === undefined ? locatorOf(loaded.addon) : undefined, diagnostics);
  if (addon.idPrefixes) checkPrefixes(content, locatorOf(loaded.addon), diagnostics);
  const all = diagnostics.list();
  return hasErrors(all) ? { diagnostics: all } : { content, diagnostics: all };
}

/** Parses with a content schema; `reported` are paths already reported (a variable that failed). */
function parseWith<T extends z.ZodType>(
  schema: T,
  value: SourceValue,
  diagnostics: DiagnosticList,
  reported: ReadonlySet<string> = new Set(),
): z.output<T> | undefined {
  const result = schema.safeParse(value.value, { reportInput: true });
  if (result.success) return result.data;
  for (const pending of issuesToDiagnostics(result.error.issues, schema, locatorOf(value))) {
    if (pending.path === undefined || !reported.has(pending.path)) diagnostics.add(value.source.file, 'error', pending.build);
  }
  return undefined;
}

/** Keeps only what locating needs, not the parsed value, which items outlive. */
function locatorOf({ source, document, at }: SourceValue): Locator {
  const locator = (nodePath: readonly (string | number)[], key?: string) => locate(source, document, [...at, ...nodePath], key);
  return Object.assign(locator, { file: source.file });
}

/** `baseUrl` from unchecked settings, when it is valid (an invalid one is reported by the schema). */
function baseUrlOf(settings: unknown): string | undefined {
  const value = (settings as { baseUrl?: unknown } | null | undefined)?.baseUrl;
  return baseUrlSchema.safeParse(value).success ? (value as string) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Local files

/**
 * Resolves local file paths in URL fields: relative to the YAML file that names them, inside the
 * content folder, existing, and published under `assets/` at the base URL.
 */
function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * A URL without its scheme: `www.` and a host, or a host name (two or more labels, the last of
 * letters only, not a file extension: `poster.jpg` is a file) and a path.
 */
const LOOKS_LIKE_HOST = {
  test: (value: string): boolean => {
    if (/^www\.[a-z0-9-]+\.[a-z]/i.test(value)) return true;
    const host = /^((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,}))(?::\d+)?\//i.exec(value);
    return host !== null && !FILE_EXTENSIONS.has(host[2]!.toLowerCase());
  },
};
const FILE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'srt', 'vtt', 'ass', 'mp4', 'mkv', 'webm', 'avi', 'mov', 'yaml', 'yml', 'json', 'txt', 'zip']);

function localFiles(contentDir: string) {
  const root = path.resolve(contentDir);
  let realRoot: string | undefined;
  const copied = new Map<string, string>();
  let current = { dir: root, baseUrl: undefined as string | undefined };

  const resolve: LocalFileResolver = (value) => {
    const fail = (message: string, params: IssueParams) => ({ message, params });
    if (path.isAbsolute(value) || /^[a-z]:[\\/]/i.test(value)) {
      return fail(`"${value}" is an absolute path`, {
        code: 'asset-outside-content',
        hint: 'name local files relative to the YAML file, inside the content folder, or give an absolute URL',
      });
    }
    const absolute = path.resolve(current.dir, value);
    const relative = path.relative(root, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      return fail(`"${value}" is outside the content folder`, {
        code: 'asset-outside-content',
        hint: 'copy the file into the content folder; only files inside it are published',
      });
    }
    // Each part of its path becomes a name in the output and in a URL, and is printed in messages.
    for (const part of relative.split(path.sep)) {
      const problem = fileNameProblem(part, false);
      if (problem) {
        return fail(`"${value}": the name "${part}" ${problem}, so it cannot become a file name on every host`, {
          code: 'bad-file-name',
          hint: 'rename the file: no backslash or control character, at most 200 bytes per name',
        });
      }
    }
    let real: string | undefined; // where the file is once symbolic links are followed
    try {
      if (statSync(absolute).isFile()) real = realpathSync(absolute);
    } catch {
      // missing: reported below
    }
    if (real === undefined) {
      return fail(`"${value}" is neither a URL nor an existing file (looked for ${absolute})`, {
        code: 'missing-asset',
        hint: LOOKS_LIKE_HOST.test(value)
          ? `did you mean "https://${value}"? A URL needs its scheme; without one it is a file name`
          : 'check the spelling and that the path is relative to this YAML file; URLs need their scheme (https://…)',
      });
    }
    // The path is inside, but a symbolic link on it may lead out: what would be published is.
    realRoot ??= realpathOr(root);
    if (real !== realRoot && !real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep)) {
      return fail(`"${value}" leads through a symbolic link to ${real}, outside the content folder`, {
        code: 'asset-outside-content',
        hint: 'copy the file into the content folder; a build publishes no file from outside it',
      });
    }
    if (current.baseUrl === undefined) {
      return fail(`"${value}" is a local file, and local files need the public base URL`, {
        code: 'base-url-required',
        hint: 'the client rejects relative URLs: set `baseUrl` in addon.yaml or pass --base-url https://…/ (where the output will be published)',
      });
    }
    const output = `${ASSETS_DIR}/${relative.split(path.sep).join('/')}`;
    copied.set(output, absolute);
    return { url: publicUrl(current.baseUrl, output) };
  };

  return {
    resolve,
    /** Sets the file that the next values come from, and the base URL their local files get. */
    from(value: SourceValue, baseUrl: string | undefined) {
      current = { dir: path.dirname(value.source.absolute), baseUrl };
    },
    assets: (): Asset[] => [...copied].map(([output, source]) => ({ path: output, source })),
  };
}

// ---------------------------------------------------------------------------------------------
// Items

function normalizeItem(item: ContentItem, at: Locator, source: SourceFile, diagnostics: DiagnosticList, suggest: Suggest): Item {
  const { videos, streams, subtitles, trailerStreams, ...meta } = item;
  // Object.assign, not an object spread ({...meta, …}): V8 gives each object a spread makes a
  // hidden class of its own, about 300 bytes per item and per video that a build keeps to its end.
  const normalized: Item = Object.assign(meta, {
    streams: (streams ?? []).map((s) => withSubtitleIds(s, item.id)),
    subtitles: subtitleIds(subtitles ?? [], item.id),
    trailerStreams: trailerStreams?.map((s) => withSubtitleIds(s, item.id)),
    where: at,
    source,
  });
  if (!videos) {
    if (item.behaviorHints?.defaultVideoId !== undefined) unknownDefaultVideo(item, () => [], at, diagnostics, suggest);
    return normalized;
  }

  // A stream or subtitle on an item with videos would never be requested: the client asks per video.
  for (const field of ['streams', 'subtitles'] as const) {
    if (item[field]?.length) {
      diagnostics.add(at.file, 'error', () => ({
        code: 'invalid-value',
        severity: 'error',
        ...at([field]),
        path: field,
        message: `an item with videos has no ${field} of its own: the client asks for the ${field} of each video`,
        hint: `move these ${field} to the videos they belong to`,
      }));
    }
  }

  const seen = new Map<string, number>();
  const normalizedVideos: Video[] = [];
  videos.forEach((video, index) => {
    const hasEpisode = video.season !== undefined && video.episode !== undefined;
    const id = video.id ?? (hasEpisode ? `${item.id}:${video.season}:${video.episode}` : undefined);
    const title = video.title ?? (video.episode !== undefined ? `Episode ${video.episode}` : undefined);
    if (id === undefined || title === undefined) {
      const field = id === undefined ? 'id' : 'title';
      diagnostics.add(at.file, 'error', () => ({
        code: 'missing-field',
        severity: 'error',
        ...at(['videos', index]),
        path: `videos[${index}].${field}`,
        message: `"${field}" is required for a video without season and episode`,
        hint: `add ${field}: …, or give the video a season and an episode`,
      }));
      return;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      diagnostics.add(at.file, 'error', () => ({
        code: 'duplicate-video-id',
        severity: 'error',
        ...at(['videos', index]),
        path: `videos[${index}]`,
        message: `video id "${id}" is also the id of videos[${first}] (line ${at(['videos', first]).line})`,
        hint: 'give each video its own id, or its own season and episode',
      }));
      return;
    }
    seen.set(id, index);
    normalizedVideos.push(
      Object.assign({}, video, {
        id,
        title,
        streams: (video.streams ?? []).map((s) => withSubtitleIds(s, id)),
        subtitles: subtitleIds(video.subtitles ?? [], id),
        trailerStreams: video.trailerStreams?.map((s) => withSubtitleIds(s, id)),
      }),
    );
  });
  normalized.videos = sortVideos(normalizedVideos);

  const defaultVideoId = item.behaviorHints?.defaultVideoId;
  if (defaultVideoId !== undefined && !seen.has(defaultVideoId)) unknownDefaultVideo(item, () => [...seen.keys()], at, diagnostics, suggest);
  return normalized;
}

function unknownDefaultVideo(item: ContentItem, ids: () => string[], at: Locator, diagnostics: DiagnosticList, suggest: Suggest) {
  diagnostics.add(at.file, 'error', () => {
    const suggestion = suggest(item.behaviorHints!.defaultVideoId!, ids);
    return {
      code: 'unknown-default-video',
      severity: 'error',
      ...at(['behaviorHints', 'defaultVideoId']),
      path: 'behaviorHints.defaultVideoId',
      message: `"${item.behaviorHints!.defaultVideoId}" is not the id of a video of this item`,
      hint: suggestion
        ? `did you mean "${suggestion}"?`
        : item.videos
          ? 'name one of the item\'s video ids (by default {itemId}:{season}:{episode})'
          : 'a movie without videos plays its own streams; for a single-video item, add that video under `videos`',
    };
  });
}

/**
 * The client's order (stremio-core sorts videos this way when it reads a meta): episodes by season
 * with specials (season 0) after the others, then episode; videos without season and episode after
 * all episodes, by release date (oldest first when the item has episodes, newest first when it has
 * none, as in a channel), undated ones last. Array.prototype.sort is stable, like the client's.
 */
export function sortVideos(videos: Video[]): Video[] {
  const isEpisode = (v: Video) => v.season !== undefined && v.episode !== undefined;
  const hasEpisodes = videos.some(isEpisode);
  const season = (v: Video) => (v.season === 0 ? Number.MAX_SAFE_INTEGER : v.season!);
  return videos.sort((a, b) => {
    if (isEpisode(a) && isEpisode(b)) return season(a) - season(b) || a.episode! - b.episode!;
    if (isEpisode(a) || isEpisode(b)) return isEpisode(a) ? -1 : 1;
    if (a.released && b.released) {
      const older = Date.parse(a.released) - Date.parse(b.released);
      return hasEpisodes ? older : -older;
    }
    return a.released ? -1 : b.released ? 1 : 0;
  });
}

function subtitleIds(subtitles: ContentSubtitle[], ownerId: string): Subtitle[] {
  const used = new Set<string>();
  // The number each language's search goes on from: ids once used stay used, so the numbers
  // below it are taken, and a thousand subtitles of one language are not a million lookups.
  const next = new Map<string, number>();
  return subtitles.map((s) => {
    let id = s.id;
    if (id === undefined) {
      id = `${ownerId}:${s.lang}`;
      let n = next.get(s.lang) ?? 2;
      if (used.has(id)) while (used.has((id = `${ownerId}:${s.lang}:${n}`))) n++;
      next.set(s.lang, n);
    }
    used.add(id);
    return { id, lang: s.lang, url: s.url };
  });
}

function withSubtitleIds(stream: ContentStream, ownerId: string): Stream {
  // Most streams have no subtitles of their own: they are kept as checked, not copied.
  if (stream.subtitles === undefined) return stream as Stream;
  const { subtitles, ...rest } = stream;
  return Object.assign(rest, { subtitles: subtitleIds(subtitles, ownerId) });
}

function checkUniqueIds(items: Item[], diagnostics: DiagnosticList) {
  const first = new Map<string, Item>();
  for (const item of items) {
    const earlier = first.get(item.id);
    if (!earlier) {
      first.set(item.id, item);
      continue;
    }
    // Reported in the later item's file, within its limit: 200,000 items that repeat the ids of
    // another file show 100 of them, and cost no more to count than the rest.
    diagnostics.add(item.where.file, 'error', () => {
      const at = earlier.where(['id']);
      return {
        code: 'duplicate-id',
        severity: 'error',
        ...item.where(['id']),
        path: 'id',
        message: `item id "${item.id}" is also the id of the item at ${at.file}:${at.line}:${at.column}`,
        hint: 'ids are global in Stremio: give each item its own id',
      };
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Catalogs

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Membership, order and genre options of each catalog (see README, "Catalogs"). */
function resolveCatalogs(
  settings: CatalogSettings[],
  items: Item[],
  inputBytes: number,
  at: Locator,
  diagnostics: DiagnosticList,
  suggest: Suggest,
): Catalog[] {
  const catalogs = new Map<string, Catalog & { settings: CatalogSettings; index: number }>();
  settings.forEach((s, index) => {
    const key = catalogKey(s.type, s.id);
    if (catalogs.has(key)) {
      diagnostics.push({
        code: 'duplicate-catalog',
        severity: 'error',
        ...at(['catalogs', index, 'id']),
        path: `catalogs[${index}].id`,
        message: `a ${s.type} catalog with id "${s.id}" is already declared`,
        hint: 'the client merges catalogs with the same type and id: give each its own id',
      });
      return;
    }
    const where: Locator = Object.assign((nodePath: readonly (string | number)[], key?: string) => at(['catalogs', index, ...nodePath], key), {
      file: at.file,
    });
    catalogs.set(key, { id: s.id, type: s.type, name: s.name, genres: [], items: [], where, settings: s, index });
  });

  // An item that names catalogs is in exactly those; one that names none is in every `all`
  // catalog of its type. One pass over the items, in their order: searching each item's list
  // for each catalog takes catalogs times names, which a hostile addon.yaml and item make large.
  const allOfType = new Map<string, Catalog[]>();
  for (const catalog of catalogs.values()) {
    if (catalog.settings.items !== 'all') continue;
    const list = allOfType.get(catalog.type);
    if (list) list.push(catalog);
    else allOfType.set(catalog.type, [catalog]);
  }
  const tooMany = tooManyListings(catalogs, items, inputBytes);
  if (tooMany) {
    diagnostics.push(tooMany);
    return [...catalogs.values()].map(({ settings: _s, index: _i, ...catalog }) => catalog);
  }
  for (const item of items) {
    if (!item.catalogs) {
      for (const catalog of allOfType.get(item.type) ?? []) catalog.items.push(item);
      continue;
    }
    for (const id of item.catalogs) {
      const members = catalogs.get(catalogKey(item.type, id))?.items;
      // An item that names a catalog twice is listed once: its last member is this item then.
      if (members && members[members.length - 1] !== item) members.push(item);
    }
  }

  const reported = new Map<Item, Set<number>>();
  return [...catalogs.values()].map(({ settings: s, index: _i, ...catalog }) => {
    if (Array.isArray(s.genres)) checkGenres(catalog, s.genres, reported, diagnostics, suggest);
    sortItems(catalog.items, s.sort);
    let genres: string[];
    if (s.genres === 'auto') {
      const all = new Set<string>();
      for (const item of catalog.items) for (const genre of item.genres ?? []) all.add(genre);
      genres = [...all].sort(collator.compare);
    } else {
      genres = uniqueInOrder(s.genres ?? []); // listed twice, a genre's pages would be written twice
    }
    return { ...catalog, genres };
  });
}

/**
 * unknown-genre: each genre of a member that a catalog with a fixed `genres` list does not offer,
 * at the genre in the item's file. Its genre filter would never show the item under it; a genre
 * that is one letter from an offered one is most likely a typo of it. Each genre of an item is
 * reported once, for the first such catalog that lists it.
 */
function checkGenres(catalog: Catalog, offered: readonly string[], reported: Map<Item, Set<number>>, diagnostics: DiagnosticList, suggest: Suggest) {
  const options = new Set(offered);
  for (const item of catalog.items) {
    item.genres?.forEach((genre, index) => {
      if (options.has(genre)) return;
      let done = reported.get(item);
      if (!done) reported.set(item, (done = new Set()));
      if (done.has(index)) return;
      done.add(index);
      diagnostics.add(item.where.file, 'warning', () => {
        const suggestion = suggest(genre, () => offered, 2);
        return {
          code: 'unknown-genre',
          severity: 'warning',
          ...item.where(['genres', index]),
          path: `genres[${index}]`,
          message: `catalog "${catalog.id}" does not offer the genre "${genre}": its genre filter will not show this item under it`,
          hint: suggestion
            ? `did you mean "${suggestion}"?`
            : `add "${genre}" to the genres of catalog "${catalog.id}" (line ${catalog.where(['genres']).line} of addon.yaml), or write \`genres: auto\` there`,
        };
      });
    });
  }
}

/**
 * output-too-large, when the catalogs would list items more often than a build may (see
 * OUTPUT_LIMIT): counted before any catalog lists an item. Catalogs that list every item
 * of a type, times those items, are a few lines of addon.yaml and a short item file each, and
 * listing them all took gigabytes of memory before plan could measure the output.
 */
function tooManyListings(
  catalogs: ReadonlyMap<string, Catalog & { settings: CatalogSettings; index: number }>,
  items: readonly Item[],
  inputBytes: number,
): Diagnostic | undefined {
  const ofType = new Map<string, number>();
  const named = new Map<Catalog, number>();
  for (const item of items) {
    if (!item.catalogs) ofType.set(item.type, (ofType.get(item.type) ?? 0) + 1);
    else {
      for (const id of item.catalogs) {
        const catalog = catalogs.get(catalogKey(item.type, id));
        if (catalog) named.set(catalog, (named.get(catalog) ?? 0) + 1);
      }
    }
  }
  let listings = 0;
  let largest: { catalog: Catalog & { index: number }; count: number } | undefined;
  for (const catalog of catalogs.values()) {
    const count = (named.get(catalog) ?? 0) + (catalog.settings.items === 'all' ? (ofType.get(catalog.type) ?? 0) : 0);
    listings += count;
    if (!largest || count > largest.count) largest = { catalog, count };
  }
  const limit = outputLimit(inputBytes).listings;
  if (!largest || listings <= limit) return undefined;
  const count = (n: number) => n.toLocaleString('en-US');
  const { catalog } = largest;
  return {
    code: 'output-too-large',
    severity: 'error',
    ...catalog.where(['id']),
    path: `catalogs[${catalog.index}].id`,
    message: `the ${count(catalogs.size)} catalogs would list items ${count(listings)} times, from ${byteSize(inputBytes)} of content: over the ${count(limit)} listings a build may make for it (${OUTPUT_LIMIT.listingsPerByte} per byte of content, and never less than ${count(OUTPUT_LIMIT.floorListings)}); this catalog lists ${count(largest.count)} items`,
    hint: 'use fewer catalogs that list every item of a type: with `items: listed`, a catalog lists only the items that name it in `catalogs`',
  };
}

function catalogKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

type Suggest = ReturnType<typeof suggester>;

/** What items are checked against: the catalogs by type and id, the type of each id, the ids of each type. */
interface CatalogIndex {
  keys: ReadonlySet<string>;
  typeOf: ReadonlyMap<string, string>;
  idsOf: ReadonlyMap<string, string[]>;
  /** Item types that no catalog lists, each with the catalog or known type it is a letter from, if any. */
  typos: Map<string, string | undefined>;
}

/** Made once: items that name unknown catalogs by the thousand are each looked up, not searched for. */
function indexCatalogs(settings: readonly CatalogSettings[]): CatalogIndex {
  const typeOf = new Map<string, string>();
  const idsOf = new Map<string, string[]>();
  for (const { id, type } of settings) {
    if (!typeOf.has(id)) typeOf.set(id, type);
    const ids = idsOf.get(type);
    if (ids) ids.push(id);
    else idsOf.set(type, [id]);
  }
  return { keys: new Set(settings.map((s) => catalogKey(s.type, s.id))), typeOf, idsOf, typos: new Map() };
}

/** The types Stremio's apps know (see the README, "Items"); others are allowed and shown as they are. */
const KNOWN_TYPES = ['movie', 'series', 'channel', 'tv'];

/**
 * unknown-type: a type that no catalog lists and that is one edit (a letter added, removed,
 * replaced or two swapped, or only the case) from a catalog's type or a known one. A type of
 * one's own is allowed, so this is a warning; but `movies` beside catalogs of `movie` leaves the
 * item out of every catalog without a word otherwise. Types that addon.yaml's `types` declares
 * are meant. Each type is compared once, whatever the number of its items.
 */
function checkType(item: ContentItem, catalogs: CatalogIndex, declared: readonly string[] | undefined, at: Locator, diagnostics: DiagnosticList, suggest: Suggest) {
  const { type } = item;
  if (catalogs.idsOf.has(type) || KNOWN_TYPES.includes(type) || declared?.includes(type)) return;
  if (!catalogs.typos.has(type)) {
    const listed = [...catalogs.idsOf.keys()];
    catalogs.typos.set(type, suggest(type, () => [...listed, ...KNOWN_TYPES.filter((t) => !listed.includes(t))], 1));
  }
  const suggestion = catalogs.typos.get(type);
  if (suggestion === undefined) return;
  const listed = catalogs.idsOf.has(suggestion);
  diagnostics.add(at.file, 'warning', () => ({
    code: 'unknown-type',
    severity: 'warning',
    ...at(['type']),
    path: 'type',
    message: `no catalog lists items of type "${type}", so this item is in none`,
    hint: `did you mean "${suggestion}"? ${listed ? `Catalog "${catalogs.idsOf.get(suggestion)![0]}" lists ${suggestion} items; a` : 'A'} type of your own needs a catalog of that type`,
  }));
}

/** Every catalog id an item names must exist for the item's type. */
function checkCatalogNames(item: ContentItem, catalogs: CatalogIndex, at: Locator, diagnostics: DiagnosticList, suggest: Suggest) {
  item.catalogs?.forEach((id, index) => {
    if (catalogs.keys.has(catalogKey(item.type, id))) return;
    diagnostics.add(at.file, 'error', () => {
      const otherType = catalogs.typeOf.get(id);
      const suggestion = suggest(id, () => catalogs.idsOf.get(item.type) ?? []);
      return {
        code: 'unknown-catalog',
        severity: 'error',
        ...at(['catalogs', index]),
        path: `catalogs[${index}]`,
        message: otherType
          ? `catalog "${id}" lists ${otherType} items, and this item is a ${item.type}`
          : `no catalog in addon.yaml has the id "${id}"`,
        hint: suggestion
          ? `did you mean "${suggestion}"?`
          : `declare a ${item.type} catalog with id "${id}" under \`catalogs\` in addon.yaml, or remove it here`,
      };
    });
  });
}

/** Items that no catalog lists can still be opened through meta requests, but nobody will find them. */
function warnUncatalogued(items: Item[], catalogs: Catalog[], typos: ReadonlyMap<string, string | undefined>, diagnostics: DiagnosticList) {
  const listed = new Set(catalogs.flatMap((c) => c.items));
  const byType = new Map<string, Item[]>();
  for (const item of items) {
    // A type taken for a typo has a warning at each item's type already (unknown-type).
    if (listed.has(item) || typos.get(item.type) !== undefined) continue;
    const list = byType.get(item.type);
    if (list) list.push(item);
    else byType.set(item.type, [item]);
  }
  for (const [type, unlisted] of byType) {
    const covered = catalogs.some((c) => c.type === type);
    diagnostics.push({
      code: 'uncovered-type',
      severity: 'warning',
      ...unlisted[0]!.where(['id']),
      path: 'id',
      message: `${unlisted.length} ${type} item${unlisted.length === 1 ? ' is' : 's are'} in no catalog${covered ? '' : ` (no catalog has type "${type}")`}: ${unlisted
        .slice(0, 3)
        .map((i) => i.id)
        .join(', ')}${unlisted.length > 3 ? ', …' : ''}`,
      hint: covered
        ? 'name a catalog in their `catalogs` field, or set `items: all` on a catalog of their type'
        : `add a catalog with \`type: ${type}\` to addon.yaml; until then these items can only be opened by id`,
    });
  }
}

function sortItems(items: Item[], sort: CatalogSettings['sort']) {
  if (!sort) return;
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as 'name' | 'released' | 'releaseInfo';
  const direction = descending ? -1 : 1;
  // Keys are computed once per item, not once per comparison: catalogs reach 100,000 items.
  const keyOf = (item: Item): number | string | undefined => {
    const value = item[field];
    return value !== undefined && field === 'released' ? Date.parse(value) : value;
  };
  const compare = (x: number | string, y: number | string) =>
    typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
  // Items without the field go last in both directions; equal keys keep the order they were read in.
  const keyed = items.map((item) => ({ item, key: keyOf(item) }));
  keyed.sort(({ key: x }, { key: y }) => {
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    return direction * compare(x, y);
  });
  keyed.forEach(({ item }, index) => (items[index] = item));
}

// ---------------------------------------------------------------------------------------------
// Public output

/** Request headers that carry credentials: in a static addon anyone can read them. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** `proxyHeaders.request` with credentials, in every stream of the item as written in the file. */
function checkCredentials(item: ContentItem, at: Locator, allowed: boolean, diagnostics: DiagnosticList) {
  // A path is made only for a header found: making the path of each of a large addon's stream
  // lists, to find none, took 47 MB of garbage (measured).
  const check = (streams: ContentStream[] | undefined, field: 'streams' | 'trailerStreams', video?: number) => {
    streams?.forEach((stream, s) => {
      const request = stream.behaviorHints?.proxyHeaders?.request;
      if (request === undefined) return;
      for (const header of Object.keys(request)) {
        // Spaces around a name are not part of it: the header is sent all the same.
        if (!CREDENTIAL_HEADERS.has(header.trim().toLowerCase())) continue;
        const path = [...(video === undefined ? [] : ['videos', video]), field, s, 'behaviorHints', 'proxyHeaders', 'request'];
        const severity = allowed ? 'warning' : 'error';
        diagnostics.add(at.file, severity, () => ({
          code: 'credentials-in-output',
          severity,
          ...at(path, header),
          path: formatPath([...path, header]),
          message: `the ${header} header of this stream is published: anyone who reads the addon's files can use it`,
          hint: allowed
            ? 'allowed by --allow-credentials-in-output'
            : 'use a URL that needs no credentials; if these are meant to be public, build with --allow-credentials-in-output',
        }));
      }
    });
  };
  check(item.streams, 'streams');
  check(item.trailerStreams, 'trailerStreams');
  item.videos?.forEach((video, v) => {
    check(video.streams, 'streams', v);
    check(video.trailerStreams, 'trailerStreams', v);
  });
}

/** Local files are published byte for byte: none may hold a guarded value. */
function checkAssetSecrets(assets: readonly Asset[], policy: SecretPolicy, contentDir: string, diagnostics: DiagnosticList) {
  if (policy.values.size === 0) return;
  for (const asset of assets) {
    const bytes = readFileSync(asset.source);
    for (const [secret, name] of policy.values) {
      const offset = bytes.indexOf(secret);
      if (offset < 0) continue;
      const before = bytes.subarray(0, offset);
      const lineStart = before.lastIndexOf(10) + 1;
      diagnostics.push({
        code: 'secret-in-output',
        severity: 'error',
        file: path.join(contentDir, path.relative(path.resolve(contentDir), asset.source)),
        line: before.filter((byte) => byte === 10).length + 1,
        column: offset - lineStart + 1,
        message: `this file holds the value of ${name}, a secret, and would be published as ${asset.path}`,
        hint: `remove it from the file; if ${name} is meant to be public, list it under \`publish:\` in addon.yaml`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Ids and prefixes

function idsOf(item: Item): string[] {
  return [item.id, ...(item.videos ?? []).map((v) => v.id)];
}

/**
 * The shortest set of prefixes that covers every id: the part up to the first `:` where there is
 * one (`pd:nosferatu` -> `pd:`), the id itself otherwise; prefixes covered by others are dropped.
 */
export function derivePrefixes(ids: readonly string[]): string[] {
  const candidates = uniqueInOrder(
    ids.map((id) => {
      const colon = id.indexOf(':');
      return colon > 0 ? id.slice(0, colon + 1) : id;
    }),
  ).sort();
  // Sorted, the strings that start with a prefix follow it, so one look back at the last kept
  // suffices: comparing every pair took 35 s for 100,000 ids without a `:`.
  const kept: string[] = [];
  for (const candidate of candidates) {
    if (kept.length === 0 || !candidate.startsWith(kept[kept.length - 1]!)) kept.push(candidate);
  }
  return kept;
}

function checkPrefixes(content: Content, at: Locator, diagnostics: DiagnosticList) {
  // An id's starts of each length a prefix has, looked up: comparing every id with every prefix
  // takes ids times prefixes.
  // Shortest first: no prefix longer than the id can start it, and ids are short.
  const prefixes = new Set(content.idPrefixes);
  const lengths = [...new Set(content.idPrefixes.map((p) => p.length))].sort((a, b) => a - b);
  const listed = content.idPrefixes.slice(0, 5).join(', ') + (content.idPrefixes.length > 5 ? ', …' : '');
  const covered = (id: string) => {
    for (const length of lengths) {
      if (length > id.length) return false;
      if (prefixes.has(id.slice(0, length))) return true;
    }
    return false;
  };
  for (const item of content.items) {
    for (const id of idsOf(item)) {
      if (covered(id)) continue;
      diagnostics.add(item.where.file, 'error', () => ({
        code: 'invalid-value',
        severity: 'error',
        ...item.where(['id']),
        path: 'id',
        message: `"${id}" starts with none of the idPrefixes in addon.yaml (${listed}), so the client would never ask for it`,
        hint: `add a prefix of "${id}" to idPrefixes (line ${at(['idPrefixes']).line} of addon.yaml), or remove idPrefixes to derive them`,
      }));
    }
  }
}

/**
 * The client refuses remote addons over plain HTTP; only the machine itself is exempt. `at` is
 * addon.yaml's locator when the base URL comes from there, undefined for `--base-url`.
 */
function checkBaseUrlScheme(baseUrl: string | undefined, at: Locator | undefined, diagnostics: DiagnosticList) {
  if (baseUrl === undefined) return;
  const url = new URL(baseUrl);
  if (url.protocol === 'https:' || isLoopback(url.hostname)) return;
  diagnostics.push({
    code: 'insecure-base-url',
    severity: 'warning',
    ...(at ? at(['baseUrl']) : {}),
    ...(at ? { path: 'baseUrl' } : {}),
    message: `the base URL ${baseUrl} is not https: Stremio installs remote addons only over HTTPS (plain HTTP only from 127.0.0.1)`,
    hint: `publish where the addon is served over HTTPS, and give that address as ${at ? 'baseUrl in addon.yaml' : '--base-url'} (https://…/)`,
  });
}

function uniqueInOrder<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
