// Part of stage 1, load, the playlist source: M3U / M3U8 playlists (`*.m3u`, `*.m3u8`) read into
// values shaped like YAML items, one per channel, which validate checks exactly as it checks YAML.
// Each channel's id is stable across builds and entry orders; entries with the same id are one
// item with several streams. The settings of addon.yaml's `playlists` (type, id prefix, catalog)
// are set on the file by load (playlist-settings.ts) before it is parsed.
import { createHash } from 'node:crypto';
import { problem, type DiagnosticList, type Location } from '../diagnostics/index.js';
import { parsePlaylist, type ParsedPlaylist, type PlaylistEntry, type PlaylistProblem } from './m3u-parse.js';
import type { ContentSource, SourceFile, SourceValue } from './source.js';
import { PLAYLIST_NAME } from './file-names.js';
import { MAX_NAME_BYTES } from '../shared/paths.js';

/** A playlist's settings: from its entry in addon.yaml's `playlists`, or the defaults. */
export interface PlaylistSettings {
  type: string;
  idPrefix: string;
  /** The catalog its channels are listed in; without it, every catalog of their type with `items: all`. */
  catalog?: string;
  /** Where it was read from, for a playlist named by URL: relative URLs in it are relative to this. */
  url?: string;
}

export const DEFAULT_PLAYLIST_SETTINGS: PlaylistSettings = { type: 'tv', idPrefix: 'iptv:' };

/** One channel: its id without the prefix, and the entries that make it, in playlist order. */
export interface PlaylistChannel {
  base: string;
  entries: PlaylistEntry[];
}

/** A playlist read once per build: its entries and its channels (source.ts, SourceFile.playlist). */
export interface PlaylistChannels {
  parsed: ParsedPlaylist;
  channels: PlaylistChannel[];
}

/** The entry's channel name: its title, else its tvg-name. */
export function channelName(entry: PlaylistEntry): string {
  return entry.title || (entry.attributes.get('tvg-name')?.value ?? '');
}

/**
 * The part of an id made of a name: lower case, accents dropped, every run of other characters
 * than a-z and 0-9 as one `-` (`Télé Café & Co` gives `tele-cafe-co`).
 */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Six hex digits of the name's SHA-1: the same in every build, whatever the order of entries. */
function shortHash(text: string): string {
  return createHash('sha1').update(text.normalize('NFC')).digest('hex').slice(0, 6);
}

/**
 * The channels of a playlist. An entry's id is its tvg-id, else the slug of its name. Entries
 * without tvg-id whose different names give one slug (`Café` and `Cafe`), or whose slug is
 * another entry's tvg-id, each get the slug with six hex digits of their name's hash, so that
 * none takes the plain slug by coming first and a channel without tvg-id never merges into one
 * with it; a name without a letter or digit of a-z 0-9 gets `channel-` and that hash. A slug too
 * long for a file name with `idPrefix` before it is cut, and gets the hash too: the id is made,
 * so no one could act on a bad-file-name about it. Entries of one id are one channel.
 */
export function channelsOf(parsed: ParsedPlaylist, idPrefix = DEFAULT_PLAYLIST_SETTINGS.idPrefix): PlaylistChannel[] {
  const room = MAX_NAME_BYTES - Buffer.byteLength(idPrefix);
  const namesOfSlug = new Map<string, Set<string>>();
  const tvgIdOf = (entry: PlaylistEntry) => entry.attributes.get('tvg-id')?.value ?? '';
  const tvgIds = new Set(parsed.entries.map(tvgIdOf));
  for (const entry of parsed.entries) {
    if (tvgIdOf(entry) !== '') continue;
    const slug = slugOf(channelName(entry));
    let names = namesOfSlug.get(slug);
    if (!names) namesOfSlug.set(slug, (names = new Set()));
    names.add(channelName(entry));
  }
  const channels = new Map<string, PlaylistChannel>();
  for (const entry of parsed.entries) {
    let base = tvgIdOf(entry);
    if (base === '') {
      const name = channelName(entry);
      const slug = slugOf(name);
      const shared = namesOfSlug.get(slug)!.size > 1 || tvgIds.has(slug);
      // The slug is ASCII: its length is its size in bytes.
      const hashed = shared || slug.length > room;
      const fits = room - '-123456'.length;
      const cut = hashed && slug.length > fits ? slug.slice(0, Math.max(0, fits)).replace(/-+$/, '') : slug;
      base = cut === '' ? `channel-${shortHash(name)}` : hashed ? `${cut}-${shortHash(name)}` : slug;
    }
    const channel = channels.get(base);
    if (channel) channel.entries.push(entry);
    else channels.set(base, { base, entries: [entry] });
  }
  return [...channels.values()];
}

/** The file's playlist, read on first use. */
export function playlistOf(file: SourceFile): PlaylistChannels {
  if (!file.playlist) {
    const { idPrefix } = file.playlistSettings ?? DEFAULT_PLAYLIST_SETTINGS;
    const parsed = parsePlaylist(file.text, idPrefix);
    file.playlist = { parsed, channels: channelsOf(parsed, idPrefix) };
  }
  return file.playlist;
}

/**
 * The groups of an entry: group-title (or #EXTGRP), split at `;` as many playlists write several.
 * A genre is the end of a file name: `/` and `\` become `-` (`Movies/Series` gives `Movies-Series`).
 */
function groupsOf(entry: PlaylistEntry): string[] {
  const groups = entry.attributes.get('group-title')?.value ?? entry.group ?? '';
  return groups
    .split(';')
    .map((group) => group.replace(/[/\\]/g, '-').trim())
    .filter((group) => group !== '');
}

/** A URL of the playlist, made absolute against the playlist's own URL when it was read from one. */
function resolved(url: string, settings: PlaylistSettings): string {
  if (settings.url === undefined || /^[a-z][a-z0-9+.-]+:/i.test(url) || !URL.canParse(url, settings.url)) return url;
  return new URL(url, settings.url).href;
}

/** The value of a channel, as a YAML item would have it. */
export function channelValue(channel: PlaylistChannel, settings: PlaylistSettings): Record<string, unknown> {
  const [first] = channel.entries;
  const logo = channel.entries.map((entry) => entry.attributes.get('tvg-logo')?.value ?? '').find((value) => value !== '');
  const genres = [...new Set(channel.entries.flatMap(groupsOf))];
  const streams = channel.entries.map((entry) => {
    const { userAgent, referrer, other } = entry.headers;
    const request = {
      ...other,
      ...(userAgent !== undefined && { 'User-Agent': userAgent }),
      ...(referrer !== undefined && { Referer: referrer }),
    };
    // Browsers cannot set these headers: only the streaming server can, so not the web player.
    const hints = Object.keys(request).length > 0 ? { behaviorHints: { notWebReady: true, proxyHeaders: { request } } } : {};
    return { url: resolved(entry.url, settings), name: channelName(entry), ...hints };
  });
  const image = logo === undefined ? undefined : resolved(logo, settings);
  return {
    id: `${settings.idPrefix}${channel.base}`,
    type: settings.type,
    name: channelName(first!),
    ...(image !== undefined && { poster: image, posterShape: 'square', logo: image }),
    ...(genres.length > 0 && { genres }),
    ...(settings.catalog !== undefined && { catalogs: [settings.catalog] }),
    streams,
  };
}

/** The file's values, one per channel; its malformed lines as problems. */
function* playlistValues(file: SourceFile, diagnostics: DiagnosticList): Generator<SourceValue> {
  if (file.unreadable) return;
  const { parsed, channels } = playlistOf(file);
  const report = (p: PlaylistProblem) => {
    const at = { file: file.file, line: p.line, column: p.column };
    if (p.code === 'playlist-syntax') diagnostics.add(file.file, 'error', () => problem('playlist-syntax', p.params, at));
    else if (p.code === 'hls-playlist') diagnostics.add(file.file, 'error', () => problem('hls-playlist', p.params, at));
    else diagnostics.add(file.file, 'warning', () => problem('playlist-attribute', p.params, at));
  };
  for (const p of parsed.problems) report(p);
  // Those the parser only counted count in the file's too-many-problems summary.
  for (const severity of ['error', 'warning'] as const) {
    const first = parsed.firstOmitted[severity];
    for (let n = 0; first && n < parsed.omitted[severity]; n++) report(first);
  }
  const settings = file.playlistSettings ?? DEFAULT_PLAYLIST_SETTINGS;
  for (const [document, channel] of channels.entries()) yield { source: file, document, at: [], value: channelValue(channel, settings) };
}

/** Where an item field comes from: the attribute of the first entry that has it. */
const FIELD_ATTRIBUTES: Record<string, string> = {
  id: 'tvg-id',
  poster: 'tvg-logo',
  logo: 'tvg-logo',
  posterShape: 'tvg-logo',
  genres: 'group-title',
};

/**
 * The line of a channel's value: its first #EXTINF line for the item and its fields (at the
 * attribute a field comes from, or at the name), a stream's URL line for its url, the
 * #EXTVLCOPT line for its headers.
 */
function locatePlaylist(file: SourceFile, document: number, nodePath: readonly (string | number)[]): Location {
  const channel = playlistOf(file).channels[document];
  const at = (line: number, column = 1): Location => ({ file: file.file, line, column });
  if (!channel) return at(1);
  const [field, index, sub] = nodePath;
  if (field === 'streams' && typeof index === 'number') {
    const entry = channel.entries[index] ?? channel.entries[0]!;
    if (sub === 'url') return at(entry.urlLine);
    if (sub === 'behaviorHints' && entry.headersLine !== undefined) return at(entry.headersLine);
    if (sub === 'name') return at(entry.line, entry.titleColumn);
    return at(entry.line);
  }
  const attribute = typeof field === 'string' ? FIELD_ATTRIBUTES[field] : undefined;
  const entry = (attribute && channel.entries.find((e) => e.attributes.has(attribute))) || channel.entries[0]!;
  const found = attribute ? entry.attributes.get(attribute) : undefined;
  if (found) return at(entry.line, found.column);
  if (field === 'name' || field === 'id') return at(entry.line, entry.titleColumn);
  return at(entry.line);
}

/** M3U and M3U8 playlists: a channel per id, as items of type tv (or the playlist's settings). */
export const m3uSource: ContentSource = {
  takes: (name) => PLAYLIST_NAME.test(name),
  async *parseItemFiles(files, diagnostics) {
    for (const file of files) yield playlistValues(file, diagnostics);
  },
  parseFile: (file, diagnostics) => playlistValues(file, diagnostics),
  locate: (file, document, nodePath) => locatePlaylist(file, document, nodePath),
  lineStarts: (file) => playlistOf(file).parsed.lineStarts,
};
