// Part of stage 1, load: addon.yaml's `playlists`, read before the item files are parsed. Each
// entry's settings (type, idPrefix, catalog) are set on the playlist file it names, and playlists
// named by URL are read over HTTP(S) here (fetch.ts), so that they are content files like the
// others: parsed by the playlist source, hashed into the build's inputs, shown under diagnostics.
// addon.yaml is read loosely here; validate checks `playlists` with the schema, at its lines.
import path from 'node:path';
import { closest, DiagnosticList, problem, type Location, type PlaylistUnreadable } from '../diagnostics/index.js';
import { expandVariables, policyLists, secretPolicy, type Environment } from '../validate/secrets.js';
import { fetchText } from './fetch.js';
import { fileNameProblem } from '../shared/paths.js';
import { DEFAULT_PLAYLIST_SETTINGS, m3uSource, type PlaylistSettings } from './m3u.js';
import type { SourceFile, SourceValue } from './source.js';

/** One entry of `playlists`, as far as it is well-formed. */
interface PlaylistEntrySetting {
  file?: string;
  url?: string;
  settings: PlaylistSettings;
}

export interface PlaylistReadOptions {
  /** The content folder as given; file entries are relative to addon.yaml, at its top. */
  contentDir: string;
  /** addon.yaml's path, the `absolute` of playlists read from a URL (they hold no local file). */
  addonFile: string;
  /** A playlist read from a URL larger than this is refused (--max-file-size). */
  maxBytes: number;
  /** Where a node of addon.yaml is. */
  locate: (value: SourceValue, nodePath: (string | number)[]) => Location;
  timeoutMs?: number;
  /** Variables for `${NAME}` in a playlist's URL, as in the rest of addon.yaml; default `process.env`. */
  env?: Environment;
}

/**
 * A playlist URL as it may be shown (in diagnostics, as the name of its file, in .addon-gen.json):
 * without `user:password@`, fragment, and with its query as `?…`, which often holds credentials.
 */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search === '' ? '' : '?…'}`;
}

/**
 * The URL with its `${NAME}`s replaced by expandVariables, as validate does in addon.yaml, or
 * undefined when one cannot be: validate reports why, at its line (unset-variable, …).
 */
function expandedUrl(url: string, addon: SourceValue, options: PlaylistReadOptions): string | undefined {
  if (!url.includes('${')) return url;
  const env = options.env ?? process.env;
  const lists = policyLists(addon.value);
  const holder = [url];
  const locator = Object.assign(() => ({ file: options.addonFile, line: 1, column: 1 }), { file: options.addonFile });
  const failed = expandVariables(holder, env, secretPolicy(env, lists.secrets, lists.publish), locator, new DiagnosticList());
  return failed.size > 0 ? undefined : holder[0];
}

/**
 * The id prefix of a playlist's channels. One that cannot start a file name is reported once, at
 * its line in addon.yaml, by validate's schema: its channels take the default rather than
 * each report it again in its id.
 */
function prefixOf(idPrefix: string | undefined): string {
  return idPrefix === undefined || fileNameProblem(idPrefix, false) !== undefined ? DEFAULT_PLAYLIST_SETTINGS.idPrefix : idPrefix;
}

/** The entries of `playlists` that name one file or one URL, with their settings over the defaults. */
function entriesOf(addon: unknown): (PlaylistEntrySetting | undefined)[] {
  const list = typeof addon === 'object' && addon !== null && 'playlists' in addon ? addon.playlists : undefined;
  if (!Array.isArray(list)) return [];
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return list.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const field = (key: string) => text(Reflect.get(entry, key));
    const [file, url] = [field('file'), field('url')];
    if ((file === undefined) === (url === undefined)) return undefined;
    const catalog = field('catalog');
    const settings: PlaylistSettings = {
      type: field('type') ?? DEFAULT_PLAYLIST_SETTINGS.type,
      idPrefix: prefixOf(field('idPrefix')),
      ...(catalog !== undefined && { catalog }),
      ...(url !== undefined && { url }),
    };
    return { ...(file !== undefined && { file }), ...(url !== undefined && { url }), settings };
  });
}

/**
 * Sets the settings of the playlists addon.yaml names on their files, and reads those it names
 * by URL: they are returned, to be parsed after the files of the folder, in addon.yaml's order.
 * A playlist that cannot be read is a problem at its entry in addon.yaml.
 */
export async function readPlaylists(
  addon: SourceValue | undefined,
  files: readonly SourceFile[],
  diagnostics: DiagnosticList,
  options: PlaylistReadOptions,
): Promise<SourceFile[]> {
  if (!addon) return [];
  const unreadable = (index: number, key: 'file' | 'url', params: PlaylistUnreadable) =>
    diagnostics.push(
      problem('playlist-unreadable', params, { ...options.locate(addon, ['playlists', index, key]), path: `playlists[${index}].${key}` }),
    );
  const entries = entriesOf(addon.value);
  checkDuplicates(entries, addon, diagnostics, options.locate);
  const reads = entries.map(async (entry, index): Promise<SourceFile | undefined> => {
    if (entry) checkCatalog(entry.settings, addon, index, diagnostics, options.locate);
    if (entry?.file !== undefined) {
      const relative = relativeOf(entry.file);
      const file = files.find((f) => f.relative === relative && m3uSource.takes(relative));
      if (file) file.playlistSettings = entry.settings;
      else {
        const outside = path.posix.isAbsolute(relative) || relative.startsWith('../');
        const reason = outside ? 'it is outside the content folder' : 'there is no such .m3u or .m3u8 file in the content folder';
        unreadable(index, 'file', { kind: 'file', file: entry.file, reason });
      }
      return undefined;
    }
    const url = entry?.url === undefined ? undefined : expandedUrl(entry.url, addon, options);
    if (entry === undefined || url === undefined || !/^https?:\/\//i.test(url) || !URL.canParse(url)) return undefined; // the schema says why
    const shown = shownUrl(url);
    // Relative URLs of the playlist are made absolute against it: not with its credentials.
    const base = new URL(url);
    base.username = base.password = '';
    entry.settings.url = base.href;
    const read = await fetchText(url, {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      purpose: 'playlists',
      accept: 'audio/x-mpegurl, application/vnd.apple.mpegurl, */*',
      shown,
    });
    if ('failure' in read) {
      unreadable(index, 'url', read.failure);
      return undefined;
    }
    // As read.ts makes the text of a file: a lone CR ends a line.
    const text = read.text.replace(/\r(?!\n)/g, '\n');
    return { file: shown, relative: shown, absolute: options.addonFile, text, kind: m3uSource, playlistSettings: entry.settings };
  });
  const read = await Promise.all(reads);
  // URLs that differ only in credentials or query are shown alike: each after the first is also
  // named by its entry, so that no two playlists share a file name.
  const seen = new Set<string>();
  for (const [index, file] of read.entries()) {
    if (!file) continue;
    if (seen.has(file.file)) file.file = file.relative = `${file.file} (playlists[${index}])`;
    seen.add(file.file);
  }
  return read.filter((file): file is SourceFile => file !== undefined);
}

/** A `file` of `playlists` as the relative path of a content file (`./tv\\a.m3u` is `tv/a.m3u`). */
function relativeOf(file: string): string {
  return path.posix.normalize(file.replace(/\\/g, '/')).replace(/^\.\//, '');
}

/**
 * A playlist file listed twice: an error at the later entry, which is then left out, rather than
 * settings that silently replace the earlier's.
 */
function checkDuplicates(
  entries: (PlaylistEntrySetting | undefined)[],
  addon: SourceValue,
  diagnostics: DiagnosticList,
  locate: PlaylistReadOptions['locate'],
) {
  const firstOf = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    if (entry?.file === undefined) continue;
    const relative = relativeOf(entry.file);
    const first = firstOf.get(relative);
    if (first === undefined) {
      firstOf.set(relative, index);
      continue;
    }
    const related = [{ ...locate(addon, ['playlists', first, 'file']), message: 'listed first here' }];
    const at = { ...locate(addon, ['playlists', index, 'file']), path: `playlists[${index}].file`, related };
    diagnostics.push(problem('duplicate-playlist', { file: entry.file, first }, at));
    entries[index] = undefined;
  }
}

/**
 * A catalog named in a playlist's settings must be one of addon.yaml's, of its channels' type:
 * one error at that line, rather than one at each channel (whose settings then go without it).
 */
function checkCatalog(
  settings: PlaylistSettings,
  addon: SourceValue,
  index: number,
  diagnostics: DiagnosticList,
  locate: PlaylistReadOptions['locate'],
) {
  const id = settings.catalog;
  if (id === undefined) return;
  const value = addon.value;
  const raw: unknown = typeof value === 'object' && value !== null ? Reflect.get(value, 'catalogs') : undefined;
  const catalogs = (Array.isArray(raw) ? raw : []).filter((c): c is object => typeof c === 'object' && c !== null);
  const field = (catalog: object, key: string): unknown => Reflect.get(catalog, key);
  if (catalogs.some((c) => field(c, 'id') === id && field(c, 'type') === settings.type)) return;
  const otherType = catalogs.find((c) => field(c, 'id') === id);
  const ids = catalogs
    .filter((c) => field(c, 'type') === settings.type)
    .flatMap((c) => {
      const other = field(c, 'id');
      return typeof other === 'string' ? [other] : [];
    });
  const params = { id, type: settings.type, otherType: otherType && String(field(otherType, 'type')), suggestion: closest(id, ids) };
  diagnostics.push(problem('unknown-catalog', params, { ...locate(addon, ['playlists', index, 'catalog']), path: `playlists[${index}].catalog` }));
  delete settings.catalog;
}
