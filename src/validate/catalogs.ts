// Catalogs: the items each catalog lists, in its order, with its genre filter's options; and the
// checks of what items say about catalogs and types.
import { outputLimit } from '../shared/output-limit.js';
import { problem, type Diagnostic, type DiagnosticList, type suggester } from '../diagnostics/index.js';
import type { Catalog, Item } from '../shared/content.js';
import { foldPath, resourcePath } from '../shared/paths.js';
import { autoGenres, NATURAL_ORDER } from '../shared/genres.js';
import type { Locator } from './issues.js';
import type { CatalogSettings, ContentItem } from './schema.js';

const collator = NATURAL_ORDER;

/** Membership, order and genre options of each catalog (see README, "Catalogs"). */
export function resolveCatalogs(
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
      const related = [{ ...at(['catalogs', catalogs.get(key)!.index, 'id']), message: 'declared first here' }];
      diagnostics.push(
        problem('duplicate-catalog', { type: s.type, id: s.id }, { ...at(['catalogs', index, 'id']), path: `catalogs[${index}].id`, related }),
      );
      return;
    }
    const where: Locator = Object.assign((nodePath: readonly (string | number)[], key?: string) => at(['catalogs', index, ...nodePath], key), {
      file: at.file,
    });
    const search = s.search === false ? undefined : { only: s.search === 'only', queries: s.searchQueries ?? 'all' };
    const catalog = {
      id: s.id,
      type: s.type,
      name: s.name,
      genres: [],
      items: [],
      board: s.board,
      ...(s.items === 'all' && { listsAll: true as const }),
      where,
      settings: s,
      index,
      ...(s.sort && { sort: s.sort }),
    };
    catalogs.set(key, { ...catalog, ...(search && { search }), ...(s.when && { when: s.when }) });
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
  return [...catalogs.values()].map(({ settings: s, index, ...catalog }) => {
    if (Array.isArray(s.genres)) checkGenres(catalog, s.genres, reported, diagnostics, suggest);
    sortItems(catalog.items, s.sort);
    if (s.genres === 'auto') return { ...catalog, genres: autoGenres(catalog.items), autoGenres: true };
    if (!s.genres) return { ...catalog, genres: [] };
    return { ...catalog, genres: oneSpellingEach(catalog, s.genres, index, diagnostics), fixedGenres: true as const };
  });
}

/**
 * A catalog's own genres, each once: listed twice, a genre's pages would be written twice. A
 * genre that differs from one before it only in letter case or Unicode normalization is a
 * case-conflict at it (the pages of both would be one file where case is ignored), and left out.
 */
function oneSpellingEach(catalog: Catalog, listed: readonly string[], index: number, diagnostics: DiagnosticList): string[] {
  const firstAt = new Map<string, number>();
  const genres: string[] = [];
  listed.forEach((genre, at) => {
    const first = firstAt.get(foldPath(genre));
    if (first === undefined) {
      firstAt.set(foldPath(genre), at);
      genres.push(genre);
      return;
    }
    const otherGenre = listed[first]!;
    if (otherGenre === genre) return;
    const page = (g: string) => resourcePath('catalog', catalog.type, catalog.id, [['genre', g]]);
    const related = [{ ...catalog.where(['genres', first]), message: `"${otherGenre}", listed first` }];
    const params = { genre, otherGenre, catalog: catalog.id, page: page(genre), otherPage: page(otherGenre), fixed: true };
    diagnostics.push(problem('case-conflict', params, { ...catalog.where(['genres', at]), path: `catalogs[${index}].genres[${at}]`, related }));
  });
  return genres;
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
        const related = suggestion ? [] : [{ ...catalog.where(['genres']), message: `the genres of catalog "${catalog.id}"` }];
        return problem(
          'unknown-genre',
          { catalog: catalog.id, genre, suggestion },
          { ...item.where(['genres', index]), path: `genres[${index}]`, ...(related.length > 0 ? { related } : {}) },
        );
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
  const { catalog } = largest;
  return problem(
    'output-too-large',
    { kind: 'listings', catalogs: catalogs.size, listings, input: inputBytes, limit, largest: largest.count },
    { ...catalog.where(['id']), path: `catalogs[${catalog.index}].id` },
  );
}

function catalogKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

export type Suggest = ReturnType<typeof suggester>;

/** What items are checked against: the catalogs by type and id, the type of each id, the ids of each type. */
interface CatalogIndex {
  keys: ReadonlySet<string>;
  typeOf: ReadonlyMap<string, string>;
  idsOf: ReadonlyMap<string, string[]>;
  /** Item types that no catalog lists, each with the catalog or known type it is a letter from, if any. */
  typos: Map<string, string | undefined>;
}

/** Made once: items that name unknown catalogs by the thousand are each looked up, not searched for. */
export function indexCatalogs(settings: readonly CatalogSettings[]): CatalogIndex {
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
export function checkType(
  item: ContentItem,
  catalogs: CatalogIndex,
  declared: readonly string[] | undefined,
  at: Locator,
  diagnostics: DiagnosticList,
  suggest: Suggest,
  /** The item adds streams to a title another addon describes, with that addon's type. */
  elsewhere = false,
) {
  const { type } = item;
  if (catalogs.idsOf.has(type) || KNOWN_TYPES.includes(type) || declared?.includes(type)) return;
  if (!catalogs.typos.has(type)) {
    const listed = [...catalogs.idsOf.keys()];
    catalogs.typos.set(
      type,
      suggest(type, () => [...listed, ...KNOWN_TYPES.filter((t) => !listed.includes(t))], 1),
    );
  }
  const suggestion = catalogs.typos.get(type);
  if (suggestion === undefined) return;
  const listed = catalogs.idsOf.has(suggestion);
  const listedBy = listed ? catalogs.idsOf.get(suggestion)![0] : undefined;
  diagnostics.add(at.file, 'warning', () => problem('unknown-type', { type, suggestion, listedBy, elsewhere }, { ...at(['type']), path: 'type' }));
}

/** Every catalog id an item names must exist for the item's type. */
export function checkCatalogNames(item: ContentItem, catalogs: CatalogIndex, at: Locator, diagnostics: DiagnosticList, suggest: Suggest) {
  item.catalogs?.forEach((id, index) => {
    if (catalogs.keys.has(catalogKey(item.type, id))) return;
    diagnostics.add(at.file, 'error', () => {
      const otherType = catalogs.typeOf.get(id);
      const suggestion = suggest(id, () => catalogs.idsOf.get(item.type) ?? []);
      return problem('unknown-catalog', { id, type: item.type, otherType, suggestion }, { ...at(['catalogs', index]), path: `catalogs[${index}]` });
    });
  });
}

/** Items that no catalog lists can still be opened through meta requests, but nobody will find them. */
export function warnUncatalogued(items: Item[], catalogs: Catalog[], typos: ReadonlyMap<string, string | undefined>, diagnostics: DiagnosticList) {
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
    const ids = unlisted.map((i) => i.id);
    diagnostics.push(problem('uncovered-type', { type, ids, covered }, { ...unlisted[0]!.where(['id']), path: 'id' }));
  }
}

/** The field each `sort` orders by, with or without its leading `-`. */
const SORT_FIELDS = {
  name: 'name',
  '-name': 'name',
  released: 'released',
  '-released': 'released',
  releaseInfo: 'releaseInfo',
  '-releaseInfo': 'releaseInfo',
} as const satisfies Record<NonNullable<CatalogSettings['sort']>, keyof Item>;

/** The fields of an item that catalogs sort by. */
export type SortFields = Pick<Item, (typeof SORT_FIELDS)[keyof typeof SORT_FIELDS]>;

/**
 * How a catalog sorted by `sort` orders its items: each item's key, and how two keys compare.
 * Items without the field go last in both directions; items of equal keys are in the order they
 * were read in (sortItems sorts stably, from that order).
 */
export function catalogOrder(sort: NonNullable<CatalogSettings['sort']>) {
  const field = SORT_FIELDS[sort];
  const direction = sort.startsWith('-') ? -1 : 1;
  const keyOf = (item: SortFields): number | string | undefined => {
    const value = item[field];
    return value !== undefined && field === 'released' ? Date.parse(value) : value;
  };
  const compare = (x: number | string | undefined, y: number | string | undefined): number => {
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    return direction * (typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y)));
  };
  return { keyOf, compare };
}

function sortItems(items: Item[], sort: CatalogSettings['sort']) {
  if (!sort) return;
  const { keyOf, compare } = catalogOrder(sort);
  // Keys are computed once per item, not once per comparison: catalogs reach 100,000 items.
  const keyed = items.map((item) => ({ item, key: keyOf(item) }));
  keyed.sort((x, y) => compare(x.key, y.key));
  keyed.forEach(({ item }, index) => (items[index] = item));
}
