// The bundled example content read straight from its YAML with the README's rules, independently
// of the code under test: what the addon must contain, for the tree test and the real-client test.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { parseAllDocuments } from 'yaml';

export const EXAMPLE_DIR = fileURLToPath(new URL('../../content', import.meta.url));

export interface ExampleOwner {
  id: string;
  streams: number;
  subtitles: number;
  /**
   * The extras of the player's subtitles request for each stream with subtitles hints, as the
   * client core orders them (filename, videoSize, videoHash): `filename=a.mp4`.
   */
  hintedRequests: string[];
}

export interface ExampleItem {
  id: string;
  type: string;
  name: string;
  genres: string[];
  released?: string;
  /** The item itself (no videos) or each of its videos, with default ids applied. */
  owners: ExampleOwner[];
  videos: number;
}

export interface ExampleCatalog {
  type: string;
  id: string;
  /** Member ids (in file order; the catalog's `sort` is applied by the client test itself). */
  members: string[];
  /**
   * Genre -> number of members with it. Off the Board (`board: false`), `All` first: the required
   * filter's first option, which lists every member.
   */
  genres: Map<string, number>;
  /** Whether the client asks for it without extras: on the Board (neither `board: false` nor `search: only`). */
  plain: boolean;
  /** With `search`: each query that gets files (README, "Search") -> the number of its results. */
  queries: Map<string, number>;
}

export interface Example {
  items: ExampleItem[];
  catalogs: ExampleCatalog[];
  /** Output paths of copied local files (`assets/...`). */
  localFiles: string[];
  /** Addon collections: type (default `all`), id and the manifest URLs they list. */
  addonCatalogs: { type: string; id: string; urls: string[] }[];
}

const isUrl = (value: string) => /^[a-z][a-z0-9+.-]+:/i.test(value);

export async function readExample(dir = EXAMPLE_DIR): Promise<Example> {
  const documents = async (relative: string): Promise<unknown[]> =>
    parseAllDocuments(await readFile(path.join(dir, relative), 'utf8'))
      .map((d) => (d as { toJS(): unknown }).toJS())
      .filter((v) => v !== null);

  const localFiles = new Set<string>();
  const collectLocal = (value: unknown, fileDir: string, key?: string) => {
    if (typeof value === 'string' && key && /^(url|poster|logo|background|thumbnail)$/.test(key) && !isUrl(value)) {
      localFiles.add(`assets/${path.posix.normalize(path.posix.join(fileDir, value))}`);
    } else if (Array.isArray(value)) {
      // Entries of `links` have a `url` that is never a local file.
      if (key !== 'links') value.forEach((v) => collectLocal(v, fileDir));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) collectLocal(v, fileDir, k);
    }
  };

  const [addon] = (await documents('addon.yaml')) as any[];
  collectLocal(addon, '.');
  const raw: any[] = [];
  const files = (await fg('**/*.{yaml,yml}', { cwd: dir })).filter((f) => f !== 'addon.yaml').sort();
  for (const file of files) {
    for (const value of await documents(file)) {
      const list = Array.isArray(value) ? value : [value];
      raw.push(...list);
      list.forEach((item) => collectLocal(item, path.posix.dirname(file)));
    }
  }

  // Playlists, by README's rules ("Playlists"), read here with a parser of this file's own.
  const playlistFiles = (await fg('**/*.{m3u,m3u8}', { cwd: dir, caseSensitiveMatch: false })).sort();
  for (const file of playlistFiles) {
    const setting = (addon.playlists ?? []).find((p: any) => p.file === file) ?? {};
    raw.push(...readPlaylist(await readFile(path.join(dir, file), 'utf8'), setting));
  }

  const items: ExampleItem[] = raw.map((item) => ({
    id: item.id,
    type: item.type,
    name: item.name,
    genres: item.genres ?? [],
    released: item.released,
    videos: item.videos?.length ?? 0,
    owners: (item.videos ?? [item]).map((owner: any) => ({
      id: owner === item ? item.id : (owner.id ?? `${item.id}:${owner.season}:${owner.episode}`),
      streams: owner.streams?.length ?? 0,
      subtitles: owner.subtitles?.length ?? 0,
      hintedRequests: [
        ...new Set(
          (owner.streams ?? []).flatMap((stream: any) => {
            const hints = stream.behaviorHints ?? {};
            const extras = ['filename', 'videoSize', 'videoHash'].filter((k) => hints[k] !== undefined).map((k) => `${k}=${hints[k]}`);
            return extras.length > 0 ? [extras.join('&')] : [];
          }),
        ),
      ] as string[],
    })),
  }));

  const catalogs: ExampleCatalog[] = addon.catalogs.map((catalog: any) => {
    const members = raw.filter((i) => i.type === catalog.type && (i.catalogs ? i.catalogs.includes(catalog.id) : catalog.items !== 'listed'));
    const names: string[] = catalog.genres === 'auto' ? [...new Set(members.flatMap((i) => i.genres ?? []))] : (catalog.genres ?? []);
    const genres = new Map<string, number>(names.map((g) => [g, members.filter((m) => m.genres?.includes(g)).length]));
    const offBoard = catalog.board === false;
    return {
      type: catalog.type,
      id: catalog.id,
      members: members.map((m) => m.id),
      genres: offBoard ? new Map([['All', members.length], ...genres]) : catalog.search === 'only' ? new Map() : genres,
      plain: !offBoard && catalog.search !== 'only',
      queries: catalog.search ? searchQueries(members.map((m) => m.name as string)) : new Map(),
    };
  });

  const addonCatalogs = (addon.addonCatalogs ?? []).map((collection: any) => ({
    type: collection.type ?? 'all',
    id: collection.id,
    urls: collection.addons.map((entry: any) => (typeof entry === 'string' ? entry : entry.url)),
  }));
  return { items, catalogs, localFiles: [...localFiles], addonCatalogs };
}

/**
 * The channels of a playlist as items: `#EXTINF:-1 key="value" …,Name` then the URL; the id is
 * the prefix (default `iptv:`) and tvg-id, else the name in lower case without accents, other
 * characters as `-`; entries of one id are one item with a stream each; group-title gives genres.
 * Enough for the example's playlist (no quotes inside values, no names that share a slug).
 */
function readPlaylist(text: string, setting: { type?: string; idPrefix?: string; catalog?: string }): any[] {
  const items = new Map<string, any>();
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('#EXTINF:')) continue;
    const line = lines[i]!;
    const attributes = Object.fromEntries([...line.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const afterQuotes = line.slice(line.lastIndexOf('"') + 1);
    const name = afterQuotes.slice(afterQuotes.indexOf(',') + 1).trim();
    const url = lines.slice(i + 1).find((l) => l !== '' && !l.startsWith('#'))!;
    const slug = name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const id = `${setting.idPrefix ?? 'iptv:'}${attributes['tvg-id'] || slug}`;
    const item = items.get(id) ?? {
      id,
      type: setting.type ?? 'tv',
      name,
      genres: [],
      streams: [],
      ...(setting.catalog !== undefined && { catalogs: [setting.catalog] }),
    };
    for (const genre of (attributes['group-title'] ?? '').split(';').filter(Boolean)) if (!item.genres.includes(genre)) item.genres.push(genre);
    item.streams.push({ url });
    items.set(id, item);
  }
  return [...items.values()].map((item) => (item.genres.length > 0 ? item : { ...item, genres: undefined }));
}

/**
 * The queries that get search files, by README's rules, with their number of results: each word
 * and each whole name (unless it has `/`, `\\`, `?`, `#`, `%`), as written, in lower case, and
 * both without accents; a name answers when its words, folded alike, hold every word of the query.
 */
function searchQueries(names: string[]): Map<string, number> {
  const words = (text: string) => text.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
  // The example's names are Latin: their accents are the combining diacritics U+0300 to U+036F.
  const bare = (text: string) =>
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/gu, '')
      .normalize('NFC');
  const fold = (text: string) => words(bare(text).toLowerCase());
  const queries = new Set<string>();
  for (const name of names) {
    const whole = /[/\\?#%]/.test(name) ? [] : [name.trim()];
    for (const query of [...words(name), ...whole]) {
      for (const spelling of [query, query.toLowerCase(), bare(query), bare(query.toLowerCase())]) queries.add(spelling);
    }
  }
  const folded = names.map((name) => new Set(fold(name)));
  return new Map([...queries].map((q) => [q, folded.filter((nameWords) => fold(q).every((w) => nameWords.has(w))).length]));
}

/**
 * Every file the example's output must hold: manifest, catalog pages for each catalog and genre
 * (first page, later pages of 100, an empty page at skip=<total>, both extra orders with a genre),
 * a meta per item, streams per movie and per episode, subtitles per movie and episode of the types
 * that have some and per hinted stream, local files, pages and host rules.
 */
export function expectedFiles(example: Example): Set<string> {
  const files = new Set(['manifest.json', ...example.localFiles]);
  // The install and 404 pages, and the rule files of every host (the default, --host all).
  for (const file of ['index.html', '404.html', '_headers', '_redirects', 'vercel.json', '.nojekyll']) files.add(file);
  const pages = (type: string, id: string, total: number, extra?: string) => {
    const extras = (skip: number) => (extra ? [`skip=${skip}&${extra}`, `${extra}&skip=${skip}`] : [`skip=${skip}`]);
    files.add(extra ? `catalog/${type}/${id}/${extra}.json` : `catalog/${type}/${id}.json`);
    for (let skip = 100; skip < total; skip += 100) extras(skip).forEach((e) => files.add(`catalog/${type}/${id}/${e}.json`));
    extras(total).forEach((e) => files.add(`catalog/${type}/${id}/${e}.json`));
  };
  for (const catalog of example.catalogs) {
    if (catalog.plain) pages(catalog.type, catalog.id, catalog.members.length);
    for (const [genre, count] of catalog.genres) pages(catalog.type, catalog.id, count, `genre=${genre}`);
    for (const [query, count] of catalog.queries) pages(catalog.type, catalog.id, count, `search=${query}`);
  }
  // Subtitles for every item and video of a type that has some, and the requests hints make.
  const subtitleTypes = new Set(example.items.filter((i) => i.owners.some((o) => o.subtitles > 0)).map((i) => i.type));
  for (const item of example.items) {
    files.add(`meta/${item.type}/${item.id}.json`);
    for (const owner of item.owners) {
      files.add(`stream/${item.type}/${owner.id}.json`);
      if (!subtitleTypes.has(item.type)) continue;
      files.add(`subtitles/${item.type}/${owner.id}.json`);
      for (const extras of owner.hintedRequests) files.add(`subtitles/${item.type}/${owner.id}/${extras}.json`);
    }
  }
  // Addon collections: one file each.
  for (const collection of example.addonCatalogs) files.add(`addon_catalog/${collection.type}/${collection.id}.json`);
  // Cloudflare Pages' JSON 404 in each resource folder.
  for (const folder of ['catalog', 'meta', 'stream', 'subtitles']) files.add(`${folder}/404.html`);
  if (example.addonCatalogs.length > 0) files.add('addon_catalog/404.html');
  return files;
}
